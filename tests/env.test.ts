import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, defaultWorkers, loadConfig } from '../src/env.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'cfdi-config-'));

describe('loadConfig', () => {
  test('defaults: port 3000, info logs, secrets generated into DATA_DIR with mode 0600 and reused', () => {
    const dataDir = dir();
    const a = loadConfig({ DATA_DIR: dataDir });
    expect(a.port).toBe(3000);
    expect(a.logLevel).toBe('info');
    expect(a.cancellationPollSeconds).toBe(300);
    expect(loadConfig({ DATA_DIR: dataDir, CANCELLATION_POLL_SECONDS: '2' }).cancellationPollSeconds).toBe(2);
    expect(a.jobLeaseSeconds).toBe(30);
    expect(loadConfig({ DATA_DIR: dataDir, JOB_LEASE_SECONDS: '6' }).jobLeaseSeconds).toBe(6);
    expect(a.demo).toBe(false);
    expect(a.workers).toBe(defaultWorkers(availableParallelism()));
    expect([1, 2, 3, 4, 8].map(defaultWorkers)).toEqual([1, 1, 1, 2, 4]);
    expect(loadConfig({ DATA_DIR: dataDir, WORKERS: '1' }).workers).toBe(1);
    expect(loadConfig({ DATA_DIR: dataDir, WORKERS: '3' }).workers).toBe(3);
    expect(loadConfig({ DATA_DIR: dataDir, DEMO: 'true' }).demo).toBe(true);
    // The test-only hold between a create's commit and its answer is off unless a test sets it, to 1 and nothing else.
    expect(a.testHoldBeforeAnswer).toBe(false);
    expect(loadConfig({ DATA_DIR: dataDir, TEST_HOLD_BEFORE_ANSWER: '1' }).testHoldBeforeAnswer).toBe(true);
    expect(() => loadConfig({ DATA_DIR: dataDir, TEST_HOLD_BEFORE_ANSWER: 'true' })).toThrow('TEST_HOLD_BEFORE_ANSWER');
    expect(a.databasePath).toBe(join(dataDir, 'cfdi.sqlite'));
    expect(a.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(a.masterKey.length).toBe(32);
    expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    const b = loadConfig({ DATA_DIR: dataDir });
    expect(b.jwtSecret).toBe(a.jwtSecret);
    expect(b.masterKey.equals(a.masterKey)).toBe(true);
  });

  test('given secrets win and nothing is written', () => {
    const dataDir = dir();
    const c = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), MASTER_KEY: 'ab'.repeat(32), PORT: '8080', LOG_LEVEL: 'debug' });
    expect(c.jwtSecret).toBe('x'.repeat(40));
    expect(c.masterKey.toString('hex')).toBe('ab'.repeat(32));
    expect(c.port).toBe(8080);
    expect(() => readFileSync(join(dataDir, 'jwt-secret'))).toThrow();
  });

  test.each([
    ['PORT', '70000'],
    ['PORT', 'abc'],
    ['PORT', ' '],
    ['PORT', '80.5'],
    ['DATABASE_CONNECT_TIMEOUT_SECONDS', '-1'],
    ['DATABASE_CONNECT_TIMEOUT_SECONDS', '2.5'],
    ['DATABASE_CONNECT_TIMEOUT_SECONDS', 'soon'],
    ['DATABASE_CONNECT_TIMEOUT_SECONDS', '3601'],
    ['LOG_LEVEL', 'verbose'],
    ['JWT_SECRET', 'too-short'],
    ['MASTER_KEY', 'abc'],
    ['CANCELLATION_POLL_SECONDS', '0'],
    ['CANCELLATION_POLL_SECONDS', '1.5'],
    ['CANCELLATION_POLL_SECONDS', 'soon'],
    ['JOB_LEASE_SECONDS', '2'],
    ['JOB_LEASE_SECONDS', '7.5'],
    ['SAT_CONSULTA_URL', 'not a url'],
    ['DEMO', 'yes'],
    ['SQLITE_SYNCHRONOUS', 'off'],
    ['DATABASE_URL', 'mysql://db.internal/cfdi'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['WORKERS', '0'],
    ['WORKERS', '1.5'],
    ['WORKERS', 'all'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['SMTP_URL', 'smtp://'],
    ['SMTP_URL', 'mail.example.com:587'],
    ['SMTP_URL', 'smtp://mail.example.com/inbox'],
    ['PUBLIC_BASE_URL', 'facturas.example.com'],
    ['PUBLIC_BASE_URL', 'ftp://facturas.example.com'],
    ['PUBLIC_BASE_URL', 'https://facturas.example.com/?x=1'],
    ['SMTP_FROM', 'facturas'],
    ['SMTP_FROM', 'Facturas <facturas>'],
    ['EMAIL_DAILY_LIMIT', '0'],
    ['EMAIL_DAILY_LIMIT', '2.5'],
    ['EMAIL_DAILY_LIMIT', 'many'],
    ['EMAIL_TEST_CAPTURE', 'pruebas'],
    ['EMAIL_TEST_CAPTURE', 'a@example.com,b@example.com'],
    ['EMAIL_TEST_CAPTURE', 'Pruebas <pruebas@example.com>'],
  ])('%s=%s is rejected naming the variable', (name, value) => {
    expect(() => loadConfig({ DATA_DIR: dir(), [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dir(), [name]: value })).toThrow(name);
  });

  test('PORT that is not a port: one line saying what it must be', () => {
    for (const port of ['abc', '70000', '-1', '3000abc'])
      expect(() => loadConfig({ DATA_DIR: dir(), PORT: port })).toThrow(new ConfigError('Invalid configuration: PORT: must be a port number (1-65535)'));
    expect(loadConfig({ DATA_DIR: dir(), PORT: '0' }).port).toBe(0); // any free port: what the tests' servers ask
  });

  test('DATABASE_CONNECT_TIMEOUT_SECONDS: 30 by default, 0 to fail at the first refusal', () => {
    expect(loadConfig({ DATA_DIR: dir() }).databaseConnectTimeoutSeconds).toBe(30);
    expect(loadConfig({ DATA_DIR: dir(), DATABASE_CONNECT_TIMEOUT_SECONDS: '0' }).databaseConnectTimeoutSeconds).toBe(0);
    expect(loadConfig({ DATA_DIR: dir(), DATABASE_CONNECT_TIMEOUT_SECONDS: '120' }).databaseConnectTimeoutSeconds).toBe(120);
  });

  test('SMTP_URL and SMTP_FROM: both or neither; smtp:// and smtps:// with credentials', () => {
    const dataDir = dir();
    expect(loadConfig({ DATA_DIR: dataDir }).smtp).toBeUndefined();
    const url = 'smtps://facturas%40example.com:p%40ss@smtp.example.com:465';
    expect(loadConfig({ DATA_DIR: dataDir, SMTP_URL: url, SMTP_FROM: 'Facturación <facturas@example.com>' }).smtp).toEqual({
      url,
      from: 'Facturación <facturas@example.com>',
      dailyLimit: 200,
    });
    expect(loadConfig({ DATA_DIR: dataDir, SMTP_URL: 'smtp://mail.internal:587', SMTP_FROM: 'facturas@example.com' }).smtp?.url).toBe(
      'smtp://mail.internal:587',
    );
    expect(() => loadConfig({ DATA_DIR: dataDir, SMTP_URL: url })).toThrow('SMTP_FROM is required with SMTP_URL');
    expect(() => loadConfig({ DATA_DIR: dataDir, SMTP_FROM: 'facturas@example.com' })).toThrow('SMTP_URL is not');
    // The password is never echoed.
    expect(() => loadConfig({ DATA_DIR: dataDir, SMTP_URL: 'ftp://u:secret-pass@x' })).not.toThrow('secret-pass');
  });

  test('EMAIL_DAILY_LIMIT (200 by default) and EMAIL_TEST_CAPTURE (one address, lower-cased) go with the SMTP server', () => {
    const smtp = { DATA_DIR: dir(), SMTP_URL: 'smtp://mail.internal:587', SMTP_FROM: 'facturas@example.com' };
    expect(loadConfig({ ...smtp, EMAIL_DAILY_LIMIT: '1000', EMAIL_TEST_CAPTURE: 'Pruebas@Example.com' }).smtp).toEqual({
      url: 'smtp://mail.internal:587',
      from: 'facturas@example.com',
      dailyLimit: 1000,
      testCapture: 'pruebas@example.com',
    });
    expect(loadConfig({ ...smtp, EMAIL_TEST_CAPTURE: '' }).smtp?.testCapture).toBeUndefined();
  });
});

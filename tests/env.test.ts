import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, defaultPoolSize, defaultWorkers, loadConfig } from '../src/env.ts';

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
    ['SAT_RETENCIONES_CONSULTA_URL', 'not a url'],
    ['SAT_69B_URL', 'not a url'],
    ['BLOCK_69B_RECEIVERS', 'yes'],
    ['DEMO', 'yes'],
    ['SQLITE_SYNCHRONOUS', 'off'],
    ['DATABASE_URL', 'mysql://db.internal/cfdi'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['WORKERS', '0'],
    ['WORKERS', '1.5'],
    ['WORKERS', 'all'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '1'],
    ['DATABASE_POOL_SIZE', '2.5'],
    ['DATABASE_POOL_SIZE', 'many'],
    ['DATABASE_POOL_SIZE', '1001'],
    ['BOOT_LOCK_TIMEOUT_SECONDS', '0'],
    ['BOOT_LOCK_TIMEOUT_SECONDS', '1.5'],
    ['BOOT_LOCK_TIMEOUT_SECONDS', 'soon'],
    ['BOOT_LOCK_TIMEOUT_SECONDS', '86401'],
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
    ['PACS', 'finkok;sw'],
    ['PACS', 'Finkok'],
    ['PAC_AMBIGUOUS_WINDOW_SECONDS', '0'],
    ['PAC_AMBIGUOUS_WINDOW_SECONDS', '1.5'],
    ['PAC_AMBIGUOUS_WINDOW_SECONDS', 'soon'],
    ['PAC_RETRY_MAX_SECONDS', '0'],
    ['PAC_RETRY_MAX_SECONDS', '301'],
    ['SW_URL', 'not a url'],
    ['FINKOK_URL', 'demo-facturacion.finkok.com'],
    ['PAC_URL', 'not a url'],
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

  test('DATABASE_POOL_SIZE: 2 + 4 per core, between 10 and 24, unless set; one line naming it when it is not a count of at least 2', () => {
    expect(loadConfig({ DATA_DIR: dir() }).databasePoolSize).toBe(defaultPoolSize(availableParallelism()));
    expect([1, 2, 3, 4, 6, 64].map(defaultPoolSize)).toEqual([10, 10, 14, 18, 24, 24]);
    expect(loadConfig({ DATA_DIR: dir(), DATABASE_POOL_SIZE: '2' }).databasePoolSize).toBe(2);
    expect(loadConfig({ DATA_DIR: dir(), DATABASE_POOL_SIZE: '40' }).databasePoolSize).toBe(40);
    expect(() => loadConfig({ DATA_DIR: dir(), DATABASE_POOL_SIZE: '1' })).toThrow(
      new ConfigError('Invalid configuration: DATABASE_POOL_SIZE: must be at least 2 (the boot lock holds one while the start-up work uses another)'),
    );
  });

  test('BOOT_LOCK_TIMEOUT_SECONDS: 120 by default', () => {
    expect(loadConfig({ DATA_DIR: dir() }).bootLockTimeoutSeconds).toBe(120);
    expect(loadConfig({ DATA_DIR: dir(), BOOT_LOCK_TIMEOUT_SECONDS: '5' }).bootLockTimeoutSeconds).toBe(5);
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

  describe("PACs: PACS and each PAC's settings", () => {
    const sw = { SW_URL: 'https://services.test.sw.com.mx', SW_USER: 'u', SW_PASSWORD: 'p' };
    const finkok = { FINKOK_URL: 'https://demo-facturacion.finkok.com', FINKOK_USERNAME: 'fu', FINKOK_PASSWORD: 'fp' };
    const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dir(), ...env });

    test('none when nothing is set; the one whose settings are given when PACS is not; PACS orders them', () => {
      expect(load({}).pacs).toEqual([]);
      expect(load(sw).pacs).toEqual([{ name: 'sw', settings: sw }]);
      expect(load(finkok).pacs).toEqual([{ name: 'finkok', settings: finkok }]);
      expect(load({ ...sw, ...finkok, PACS: 'finkok, sw' }).pacs).toEqual([
        { name: 'finkok', settings: finkok },
        { name: 'sw', settings: sw },
      ]);
      expect(load({ ...sw, PACS: 'sw' }).warnings).toEqual([]);
      expect(load({ ...sw, ...finkok, PACS: 'sw,finkok' }).pacs.map((p) => p.name)).toEqual(['sw', 'finkok']);
    });

    test('PAC_AMBIGUOUS_WINDOW_SECONDS: 600 by default', () => {
      expect(load({}).pacAmbiguousWindowSeconds).toBe(600);
      expect(load({ PAC_AMBIGUOUS_WINDOW_SECONDS: '30' }).pacAmbiguousWindowSeconds).toBe(30);
    });

    test('PAC_RETRY_MAX_SECONDS: 300 by default', () => {
      expect(load({}).pacRetryMaxSeconds).toBe(300);
      expect(load({ PAC_RETRY_MAX_SECONDS: '60' }).pacRetryMaxSeconds).toBe(60);
    });

    test("PAC_URL, PAC_USER and PAC_PASSWORD still configure SW, with one warning naming SW's names; SW_* win over them", () => {
      const legacy = { PAC_URL: 'https://services.test.sw.com.mx', PAC_USER: 'u', PAC_PASSWORD: 'p' };
      const c = load(legacy);
      expect(c.pacs).toEqual([{ name: 'sw', settings: sw }]);
      expect(c.warnings).toEqual([
        'PAC_URL, PAC_USER and PAC_PASSWORD are legacy names: they still work, read as SW_URL, SW_USER and SW_PASSWORD; rename them (PACS lists the providers)',
      ]);
      expect(load({ ...legacy, SW_USER: 'new' }).pacs[0]!.settings.SW_USER).toBe('new');
      expect(load({ ...legacy, PACS: 'sw' }).pacs.map((p) => p.name)).toEqual(['sw']);
    });

    test('an unknown name, a PAC listed twice or without its settings, settings of an unlisted PAC: one line naming the variable', () => {
      const refused = (env: Record<string, string>, line: string) => expect(() => load(env)).toThrow(new ConfigError(`Invalid configuration: ${line}`));
      refused({ ...sw, PACS: 'sw,prodigia' }, 'PACS: unknown PAC "prodigia" (known: sw, finkok)');
      refused({ ...sw, PACS: 'sw,sw' }, 'PACS: sw is listed twice');
      refused({ ...sw, PACS: 'sw,finkok' }, 'FINKOK_URL, FINKOK_USERNAME and FINKOK_PASSWORD are required for the finkok PAC (PACS lists it)');
      refused(
        { ...sw, FINKOK_URL: finkok.FINKOK_URL, PACS: 'sw,finkok' },
        'FINKOK_USERNAME and FINKOK_PASSWORD are required for the finkok PAC (PACS lists it)',
      );
      refused({ ...sw, ...finkok, PACS: 'finkok' }, 'SW_URL, SW_USER and SW_PASSWORD are set but PACS does not list sw: add sw to PACS or unset them');
      refused({ ...finkok, PAC_URL: sw.SW_URL, PACS: 'finkok' }, 'PAC_URL is set but PACS does not list sw: add sw to PACS or unset it');
      refused({ ...sw, ...finkok }, 'PACS is required with the settings of several PACs (sw, finkok): list them in the order to try, e.g. PACS=sw,finkok');
      refused({ SW_URL: sw.SW_URL }, 'SW_USER and SW_PASSWORD are required for the sw PAC (its other settings are set)');
      refused({ PAC_URL: sw.SW_URL }, 'SW_USER and SW_PASSWORD are required for the sw PAC (its other settings are set)');
    });
  });
});

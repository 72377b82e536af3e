import { afterAll, describe, expect, test } from 'bun:test';
import { createPrivateKey, verify } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicKeyOf } from '../../src/cfdi/csd.ts';
import { openDatabase } from '../../src/db/client.ts';
import { loadConfig } from '../../src/env.ts';
import { activeSigner } from '../../src/invoices/csds/service.ts';
import { closeDatabase, csdFiles, csdForm, issuer, serverTarget, TEST_ENGINE } from '../helpers.ts';
import { fielSigner } from '../../src/invoices/fiel/service.ts';
import { startServer, stopServer } from './server.ts';

const { cer, key, password } = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
/** SAT's test e.firma of the same RFC: PUT /fiel keeps its key as CSD keys are kept. */
const FIEL = csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9');

const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-csd-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Every form the private key or the password could take if it leaked into storage (the CSD's, and the FIEL's). */
function secretNeedles(): [string, Buffer][] {
  return [...needlesOf(key, password), ...needlesOf(FIEL.key, FIEL.password).map(([label, needle]): [string, Buffer] => [`FIEL ${label}`, needle])];
}

function needlesOf(key: Buffer, password: string): [string, Buffer][] {
  const plain = createPrivateKey({ key, format: 'der', type: 'pkcs8', passphrase: password });
  const pkcs8 = plain.export({ format: 'der', type: 'pkcs8' }) as Buffer;
  const pkcs1 = plain.export({ format: 'der', type: 'pkcs1' }) as Buffer;
  const pem = plain.export({ format: 'pem', type: 'pkcs8' }) as string;
  const needles: [string, Buffer][] = [
    ['password', Buffer.from(password)],
    ['encrypted .key DER', key],
    ['encrypted .key base64', Buffer.from(key.toString('base64').slice(0, 64))],
    ['PKCS#8 DER', pkcs8.subarray(0, 64)],
    ['PKCS#8 DER (tail)', pkcs8.subarray(pkcs8.length - 64)],
    ['PKCS#1 DER', pkcs1.subarray(0, 64)],
    ['PKCS#8 base64', Buffer.from(pkcs8.toString('base64').slice(40, 104))],
    ['PEM body', Buffer.from(pem.split('\n')[2]!)],
    ['PEM header', Buffer.from('PRIVATE KEY-----')],
  ];
  return needles;
}

function findSecrets(bytes: Buffer): string[] {
  return secretNeedles()
    .filter(([, needle]) => bytes.includes(needle))
    .map(([label]) => label);
}

test('control: the scan finds each secret form when it is present', () => {
  const plain = createPrivateKey({ key, format: 'der', type: 'pkcs8', passphrase: password });
  const pkcs8 = plain.export({ format: 'der', type: 'pkcs8' }) as Buffer;
  const leaked = Buffer.concat([
    cer,
    Buffer.from(password),
    pkcs8,
    Buffer.from(pkcs8.toString('base64')),
    Buffer.from(plain.export({ format: 'pem', type: 'pkcs8' }) as string),
  ]);
  expect(findSecrets(leaked)).toEqual(expect.arrayContaining(['password', 'PKCS#8 DER', 'PKCS#8 base64', 'PEM body']));
  expect(findSecrets(cer)).toEqual([]);
});

function scanStorage() {
  const files = ['cfdi.sqlite', 'cfdi.sqlite-wal', 'cfdi.sqlite-shm'].map((f) => join(dataDir, f)).filter(existsSync);
  expect(files.length).toBeGreaterThan(0);
  const found: string[] = [];
  for (const file of files) {
    for (const label of findSecrets(readFileSync(file))) found.push(`${label} in ${file}`);
  }
  return found;
}

// SQLite only: reads the sealed keys in the SQLite file.
describe.skipIf(TEST_ENGINE !== 'sqlite')('CSD and FIEL private keys at rest', () => {
  test('stored encrypted, never with the password; survive a restart; a different master key refuses to start', async () => {
    const first = await startServer(dataDir);
    const reg = await issuer(serverTarget(first.base), { email: 'csd@example.com' });
    const up = await fetch(`${first.base}/csds`, { method: 'POST', headers: { authorization: `Bearer ${reg.token}` }, body: csdForm({ cer, key, password }) });
    expect(up.status).toBe(201);
    const fiel = await fetch(`${first.base}/fiel`, { method: 'PUT', headers: { authorization: `Bearer ${reg.token}` }, body: csdForm(FIEL) });
    expect(fiel.status).toBe(201);
    // While running (pages still in the WAL) and after a clean stop.
    expect(scanStorage()).toEqual([]);
    await stopServer(first.proc);
    expect(scanStorage()).toEqual([]);
    // The certificate (public) is stored: the scan would see secrets if they were there.
    expect(readFileSync(join(dataDir, 'cfdi.sqlite')).includes(cer.subarray(0, 200))).toBe(true);

    const second = await startServer(dataDir);
    expect((await fetch(`${second.base}/health`)).status).toBe(200);
    await stopServer(second.proc);

    // Same DATA_DIR, same master key: the stored key decrypts and signs.
    const config = loadConfig({ DATA_DIR: dataDir });
    const db = openDatabase(config.databasePath);
    const signer = (await activeSigner({ db, now: () => new Date(), masterKey: config.masterKey }, reg.tenant.id, 'test'))!;
    const sello = await signer.sign('||4.0|prueba||');
    expect(verify('sha256', Buffer.from('||4.0|prueba||'), publicKeyOf(cer), Buffer.from(sello, 'base64'))).toBe(true);
    const use = { environment: 'test' as const, purpose: 'prueba' };
    const fielSignature = await (await fielSigner({ db, now: () => new Date(), masterKey: config.masterKey }, reg.tenant.id, use))!.sign('prueba', 'sha1');
    expect(verify('sha1', Buffer.from('prueba'), publicKeyOf(FIEL.cer), Buffer.from(fielSignature, 'base64'))).toBe(true);
    await expect(fielSigner({ db, now: () => new Date(), masterKey: Buffer.alloc(32, 9) }, reg.tenant.id, use)).rejects.toThrow(/master key/);
    // A different master key cannot open it (never a wrong signature).
    await expect(
      activeSigner({ db: openDatabase(config.databasePath), now: () => new Date(), masterKey: Buffer.alloc(32, 9) }, reg.tenant.id, 'test'),
    ).rejects.toThrow(/master key/);
    closeDatabase(db);

    // A different MASTER_KEY: the process refuses to start, naming the variable.
    const wrong = Bun.spawn([process.execPath, 'src/index.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, MASTER_KEY: 'ab'.repeat(32) },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await wrong.exited).toBe(1);
    expect(await new Response(wrong.stderr).text()).toContain('MASTER_KEY does not match');
  }, 30_000); // two server starts, the first one loading the SAT catalogs (~2 s on a busy machine)
});

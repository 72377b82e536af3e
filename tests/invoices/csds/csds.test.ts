import { describe, expect, test } from 'bun:test';
import { verify } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicKeyOf } from '../../../src/cfdi/csd.ts';
import { activeSigner, sweepCsdExpiry } from '../../../src/invoices/csds/service.ts';
import { createTestApp, csdFiles, csdForm, ingreso, issuer, TENANTS, TEST_MASTER_KEY } from '../../helpers.ts';
import { sql } from 'drizzle-orm';

const EKU = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
const EKU_FIEL = csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9');
const FUNK = csdFiles('FUNK671228PH6_CSD', 'FUNK671228PH6');
const ONO = csdFiles('ONO120726RX3_CSD', 'ONO120726RX3');
const AAA = csdFiles('AAA010101AAA_CSD01_expired', 'CSD01_AAA010101AAA');
/** Made for these tests with openssl (tests/fixtures/csd/refused/README.md); the keys open with EKU's password. */
const refusedKey = (name: string) => readFileSync(join(import.meta.dir, '..', '..', 'fixtures', 'csd', 'refused', name));
const EKU_10M_ITERATIONS = refusedKey('EKU9003173C9_10M_iterations.key');
/** CSD-looking certificates of EKU9003173C9 (RFC, OU, 20-digit serial, CSD key usage) that SAT did not issue. */
const SELF_SIGNED = csdFiles('refused', 'self_signed');
const OTHER_CA = csdFiles('refused', 'other_ca');
const FORGED_AC_UAT = csdFiles('refused', 'forged_ac_uat');
/** EKU9003173C9's CSD for live in tests: a made-up authority named as SAT (tests/fixtures/csd/EKU9003173C9_live/README.md). */
const EKU_LIVE = csdFiles('EKU9003173C9_live', 'EKU9003173C9');
/** EKU's key with the INTEGER tag of its PBKDF2 iteration count (offset 44) turned into an OCTET STRING. */
const EKU_MALFORMED_PBKDF2 = Buffer.from(EKU.key).fill(0x04, 44, 45);

const t = await createTestApp();

async function upload(token: string, files: Parameters<typeof csdForm>[0]) {
  const res = await t.app.request('/api/v1/csds', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: csdForm(files) });
  return { status: res.status, json: (await res.json()) as any };
}

describe('POST /csds accepts SAT test CSDs for their own tenant', () => {
  test('EKU9003173C9 → 201 with NoCertificado and the certificate dates', async () => {
    const reg = await issuer(t);
    const res = await upload(reg.token, EKU);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      rfc: 'EKU9003173C9',
      serial_number: '30001000000500003416',
      valid_from: '2023-05-18T11:43:51.000Z',
      valid_to: '2027-05-18T11:43:51.000Z',
      status: 'active',
      environment: 'test',
      nombre: 'ESCUELA KEMPER URGATE SA DE CV',
    });
    expect(res.json.id).toStartWith('csd_');
    expect(new Date(res.json.created_at).toISOString()).toBe(res.json.created_at);
  });

  test('OÑO120726RX3 (with Ñ) and FUNK671228PH6 (persona física) work for their tenants', async () => {
    const ono = await issuer(t, { tenant: TENANTS.ONO });
    const r1 = await upload(ono.token, ONO);
    expect(r1.status).toBe(201);
    expect(r1.json).toMatchObject({ rfc: 'OÑO120726RX3', serial_number: '30001000000500003439' });
    const funk = await issuer(t, { tenant: TENANTS.FUNK });
    const r2 = await upload(funk.token, FUNK);
    expect(r2.status).toBe(201);
    expect(r2.json).toMatchObject({ rfc: 'FUNK671228PH6', serial_number: '30001000000500003446', nombre: 'KARLA FUENTE NOLASCO' });
  });

  test('PEM certificate and key are accepted too', async () => {
    const reg = await issuer(t);
    const pem = (label: string, der: Buffer) =>
      `-----BEGIN ${label}-----\n${der
        .toString('base64')
        .match(/.{1,64}/g)!
        .join('\n')}\n-----END ${label}-----\n`;
    const res = await upload(reg.token, { cer: pem('CERTIFICATE', EKU.cer), key: pem('ENCRYPTED PRIVATE KEY', EKU.key), password: EKU.password });
    expect(res.status).toBe(201);
  });
});

describe('POST /csds rejects what cannot seal, naming the field and the reason', () => {
  const cases: [string, keyof typeof TENANTS, Parameters<typeof csdForm>[0], number, string, RegExp][] = [
    ['the EKU FIEL', 'EKU', EKU_FIEL, 400, 'cer', /FIEL/],
    ['the expired AAA010101AAA CSD', 'AAA', AAA, 400, 'cer', /expired on 2021-05-18/],
    ['a wrong password', 'EKU', { ...EKU, password: 'wrong-password' }, 400, 'password', /does not open/],
    ['a key from another certificate', 'EKU', { ...EKU, key: FUNK.key }, 400, 'key', /does not belong to the certificate/],
    ['a self-signed certificate', 'EKU', SELF_SIGNED, 400, 'cer', /^is self-signed: a CSD is issued by SAT/],
    ['a certificate issued by another authority', 'EKU', OTHER_CA, 400, 'cer', /^is issued by "CERTIFICADORA DE EJEMPLO", not by SAT/],
    [
      "a certificate naming SAT's test authority as issuer but not signed by it",
      'EKU',
      FORGED_AC_UAT,
      400,
      'cer',
      /^is not issued by SAT's test certification authorities \(AC UAT, ARC UAT\): its issuer's signature does not verify/,
    ],
    ['the FUNK certificate on the EKU tenant', 'EKU', FUNK, 400, 'cer', /belongs to RFC FUNK671228PH6, not to this tenant's RFC EKU9003173C9/],
    ['a file that is not a certificate', 'EKU', { ...EKU, cer: 'hello, I am a text file' }, 400, 'cer', /not an X.509 certificate/],
    ['a file that is not a key', 'EKU', { ...EKU, key: EKU.cer }, 400, 'key', /not an encrypted PKCS#8/],
    ['garbage as key', 'EKU', { ...EKU, key: Buffer.from([1, 2, 3, 4]) }, 400, 'key', /not .*private key/],
    [
      'a key asking for 10,000,000 PBKDF2 iterations',
      'EKU',
      { ...EKU, key: EKU_10M_ITERATIONS },
      400,
      'key',
      /^the key's encryption asks for 10000000 PBKDF2 iterations; SAT's keys use 2048; at most 100000 are accepted$/,
    ],
    [
      'a key encrypted with Camellia',
      'EKU',
      { ...EKU, key: refusedKey('EKU9003173C9_camellia.key') },
      400,
      'key',
      /encrypted with the cipher 1\.2\.392\.200011\.61\.1\.1\.1\.4, which is not accepted: SAT's keys use PBES2/,
    ],
    [
      'a key derived with scrypt',
      'EKU',
      { ...EKU, key: refusedKey('EKU9003173C9_scrypt.key') },
      400,
      'key',
      /encrypted with the key derivation 1\.3\.6\.1\.4\.1\.11591\.4\.11, which is not accepted/,
    ],
    [
      'a key whose PBKDF2 parameters are malformed',
      'EKU',
      { ...EKU, key: EKU_MALFORMED_PBKDF2 },
      400,
      'key',
      /malformed encryption header \(PBKDF2 parameters\)/,
    ],
    ['an empty certificate', 'EKU', { ...EKU, cer: Buffer.alloc(0) }, 400, 'cer', /empty/],
    ['an empty key', 'EKU', { ...EKU, key: Buffer.alloc(0) }, 400, 'key', /empty/],
    ['a certificate over 64 KiB', 'EKU', { ...EKU, cer: Buffer.alloc(70 * 1024, 1) }, 413, 'cer', /at most 65536 bytes/],
    ['a missing password', 'EKU', { cer: EKU.cer, key: EKU.key }, 400, 'password', /required/],
    ['a missing certificate', 'EKU', { key: EKU.key, password: EKU.password }, 400, 'cer', /must be a file/],
    ['a certificate sent as text', 'EKU', { key: EKU.key, password: EKU.password, cer: undefined }, 400, 'cer', /must be a file/],
  ];
  for (const [label, tenant, files, status, field, issue] of cases) {
    test(label, async () => {
      const reg = await issuer(t, { tenant: TENANTS[tenant] });
      const res = await upload(reg.token, files);
      expect(res.status).toBe(status);
      expect(res.json.error.code).toBe(`HTTP_${status}`);
      const detail = res.json.error.details.find((d: any) => d.field === field);
      expect(detail).toBeDefined();
      expect(detail.issue).toMatch(issue);
      expect((await t.call('GET', '/csds', { token: reg.token })).json.data).toEqual([]);
    });
  }

  test('a key asking for 10,000,000 PBKDF2 iterations is refused before any key derivation: no slower than an ordinary upload', async () => {
    const reg = await issuer(t);
    const timed = async (files: Parameters<typeof csdForm>[0]) => {
      const started = performance.now();
      const res = await upload(reg.token, files);
      return { ...res, ms: performance.now() - started };
    };
    // The same request with SAT's own key (2,048 iterations, a wrong password): the machine's pace for one upload.
    const baseline = await timed({ ...EKU, password: 'wrong-password' });
    expect(baseline.status).toBe(400);
    const hostile = await timed({ ...EKU, key: EKU_10M_ITERATIONS });
    expect(hostile.status).toBe(400);
    expect(hostile.json.error.details).toEqual([{ field: 'key', issue: expect.stringContaining('10000000 PBKDF2 iterations') }]);
    // Deriving 10,000,000 iterations takes seconds; refusing takes what any upload takes. The floor is a second: a
    // machine busy with other work (a second suite) stalls one request by hundreds of ms, never by the derivation's seconds.
    expect(hostile.ms).toBeLessThan(Math.max(1_000, 3 * baseline.ms));
  });

  test('JSON instead of multipart → 415', async () => {
    const reg = await issuer(t);
    const res = await t.call('POST', '/csds', { token: reg.token, body: { cer: 'x', key: 'y', password: 'z' } });
    expect(res.status).toBe(415);
  });

  test('the same certificate twice → 409', async () => {
    const reg = await issuer(t);
    expect((await upload(reg.token, EKU)).status).toBe(201);
    const again = await upload(reg.token, EKU);
    expect(again.status).toBe(409);
    expect(again.json.error.details[0].field).toBe('cer');
  });
});

describe('POST /csds in live refuses certificates SAT did not issue', () => {
  test('self-signed or issued by another authority → 400 naming cer', async () => {
    const reg = await issuer(t);
    const live = await reg.createKey('live');
    const self = await upload(live.key, SELF_SIGNED);
    expect(self.status).toBe(400);
    expect(self.json.error.details).toEqual([{ field: 'cer', issue: 'is self-signed: a CSD is issued by SAT (Servicio de Administración Tributaria)' }]);
    const other = await upload(live.key, OTHER_CA);
    expect(other.status).toBe(400);
    expect(other.json.error.details).toEqual([
      { field: 'cer', issue: 'is issued by "CERTIFICADORA DE EJEMPLO", not by SAT (Servicio de Administración Tributaria)' },
    ]);
    expect((await upload(live.key, EKU_LIVE)).status).toBe(201);
  });
});

describe('a test CSD cannot sign live invoices (issue 34)', () => {
  const TEST_CSD_IN_LIVE = {
    field: 'cer',
    issue:
      "is a test CSD (issued by SAT's test certification authorities): a test CSD cannot sign live invoices; upload the CSD SAT issued to you, or use a sk_test_ key",
  };

  test("POST /csds in live refuses SAT's test CSDs, each issued by AC UAT → 400 naming cer; test mode keeps accepting them", async () => {
    for (const [tenant, files] of [
      ['EKU', EKU],
      ['FUNK', FUNK],
      ['ONO', ONO],
    ] as const) {
      const reg = await issuer(t, { tenant: TENANTS[tenant] });
      const live = await reg.createKey('live');
      const refused = await upload(live.key, files);
      expect([tenant, refused.status, refused.json.error.details]).toEqual([tenant, 400, [TEST_CSD_IN_LIVE]]);
      expect((await t.call('GET', '/csds', { token: live.key })).json.data).toEqual([]);
      expect((await upload(reg.token, files)).json).toMatchObject({ environment: 'test', status: 'active' });
    }
  });

  test("the chain decides, not the names: a certificate that copies AC UAT's names but another key signed is no test CSD", async () => {
    // Live checks the issuer's name only while SAT's production authorities are not bundled (docs/decisions.md).
    const reg = await issuer(t);
    const live = await reg.createKey('live');
    expect((await upload(live.key, FORGED_AC_UAT)).json).toMatchObject({ environment: 'live', status: 'active' });
  });

  test('a test CSD stored in live before the refusal can neither be activated nor seal there', async () => {
    const reg = await issuer(t);
    const live = await reg.createKey('live');
    const stored = (await upload(reg.token, EKU)).json;
    await t.exec(sql`update csds set environment = 'live' where id = ${stored.id}`);
    expect((await t.call('GET', `/csds/${stored.id}`, { token: live.key })).json).toMatchObject({ environment: 'live', status: 'active' });
    const deps = { db: t.db, now: () => t.clock.now, masterKey: TEST_MASTER_KEY };
    expect(await activeSigner(deps, reg.tenant.id, 'live')).toBeUndefined();

    expect((await t.call('POST', `/csds/${stored.id}/deactivate`, { token: live.key })).json.status).toBe('inactive');
    const activated = await t.call('POST', `/csds/${stored.id}/activate`, { token: live.key });
    expect([activated.status, activated.json.error.details]).toEqual([
      409,
      [{ field: 'id', issue: `certificate 30001000000500003416 ${TEST_CSD_IN_LIVE.issue}` }],
    ]);
    expect((await t.call('GET', `/csds/${stored.id}`, { token: live.key })).json.status).toBe('inactive');

    const validated = await t.call('POST', '/cfdis/validate', { token: live.key, body: ingreso() });
    expect(validated.json.errors).toContainEqual({
      field: 'csd',
      issue: "no active CSD in the live environment that can sign live invoices (SAT's test CSDs cannot): upload one with POST /csds",
    });
  });
});

describe('POST /csds is rate-limited per tenant and environment', () => {
  test('10 uploads that try a password an hour, accepted or refused; the 11th → 429 with Retry-After until the hour ends; other tenants and environments unaffected', async () => {
    const reg = await issuer(t);
    expect((await upload(reg.token, EKU)).status).toBe(201);
    expect((await upload(reg.token, EKU)).status).toBe(409);
    for (let i = 0; i < 8; i++) expect((await upload(reg.token, { ...EKU, password: 'wrong-password' })).status).toBe(400);
    // A certificate refused before the key is opened costs no key derivation and does not count.
    for (let i = 0; i < 3; i++) expect((await upload(reg.token, FUNK)).status).toBe(400);

    const res = await t.app.request('/api/v1/csds', { method: 'POST', headers: { authorization: `Bearer ${reg.token}` }, body: csdForm(EKU) });
    expect(res.status).toBe(429);
    const untilHourEnds = Math.ceil((3_600_000 - (t.clock.now.getTime() % 3_600_000)) / 1000);
    expect(Number(res.headers.get('retry-after'))).toBe(untilHourEnds);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: { code: 'HTTP_429', message: 'Too many CSD uploads' }, path: '/api/v1/csds' });
    expect(body.error.details).toEqual([
      { field: 'rate_limit', issue: `at most 10 CSD uploads that try a password per hour per tenant and environment; retry in ${untilHourEnds} seconds` },
    ]);
    expect(body.request_id).toBeString();

    const live = await reg.createKey('live');
    expect((await upload(live.key, EKU_LIVE)).status).toBe(201);
    const other = await issuer(t);
    expect((await upload(other.token, EKU)).status).toBe(201);

    t.clock.advance(untilHourEnds * 1000);
    expect((await upload(reg.token, { ...EKU, password: 'wrong-password' })).status).toBe(400);
  });
});

describe('managing CSDs', () => {
  test('list, get, deactivate, activate, delete; at most one active per tenant and environment', async () => {
    const reg = await issuer(t);
    const first = (await upload(reg.token, EKU)).json;
    // A CSD of the live environment is apart from the test one.
    const live = await reg.createKey('live');
    const second = (await upload(live.key, EKU_LIVE)).json;
    expect(second.environment).toBe('live');
    expect(second.status).toBe('active');
    expect((await t.call('GET', `/csds/${first.id}`, { token: reg.token })).json.status).toBe('active');
    expect((await t.call('GET', `/csds/${second.id}`, { token: reg.token })).status).toBe(404); // JWT acts on test

    const list = await t.call('GET', '/csds', { token: reg.token });
    expect(list.json.data.map((c: any) => c.id)).toEqual([first.id]);

    const off = await t.call('POST', `/csds/${first.id}/deactivate`, { token: reg.token });
    expect(off.json.status).toBe('inactive');
    expect(await activeSigner({ db: t.db, now: () => t.clock.now, masterKey: TEST_MASTER_KEY }, reg.tenant.id, 'test')).toBeUndefined();
    const on = await t.call('POST', `/csds/${first.id}/activate`, { token: reg.token });
    expect(on.json.status).toBe('active');

    const del = await t.call('DELETE', `/csds/${first.id}`, { token: reg.token });
    expect(del.json).toEqual({ id: first.id, deleted: true });
    expect((await t.call('GET', `/csds/${first.id}`, { token: reg.token })).status).toBe(404);
    expect((await t.call('GET', `/csds/${second.id}`, { token: live.key })).json.status).toBe('active');
  });

  test('activating one deactivates the other', async () => {
    const reg = await issuer(t);
    const a = (await upload(reg.token, EKU)).json;
    // A second certificate of the same RFC: insert a copy under another serial directly (SAT issues one per branch).
    await t.exec(sql`update csds set serial_number = '30001000000500009999' where id = ${a.id}`);
    const b = (await upload(reg.token, EKU)).json;
    expect((await t.call('GET', `/csds/${a.id}`, { token: reg.token })).json.status).toBe('inactive');
    expect(b.status).toBe('active');
    await t.call('POST', `/csds/${a.id}/activate`, { token: reg.token });
    const states = (await t.call('GET', '/csds', { token: reg.token })).json.data.map((c: any) => [c.id, c.status]);
    expect(states).toEqual([
      [a.id, 'active'],
      [b.id, 'inactive'],
    ]);
  });

  test('another tenant cannot list, read, activate, deactivate or delete it (404); VIEWER and OPERATOR cannot upload (403)', async () => {
    const owner = await issuer(t);
    const csd = (await upload(owner.token, EKU)).json;
    const other = await issuer(t);
    const otherKey = await other.createKey();
    for (const token of [other.token, otherKey.key]) {
      expect((await t.call('GET', '/csds', { token })).json.data).toEqual([]);
      expect((await t.call('GET', `/csds/${csd.id}`, { token })).status).toBe(404);
      expect((await t.call('POST', `/csds/${csd.id}/activate`, { token })).status).toBe(404);
      expect((await t.call('POST', `/csds/${csd.id}/deactivate`, { token })).status).toBe(404);
      expect((await t.call('DELETE', `/csds/${csd.id}`, { token })).status).toBe(404);
    }
    expect((await t.call('GET', `/csds/${csd.id}`, { token: owner.token })).json.status).toBe('active');
    for (const role of ['VIEWER', 'OPERATOR'] as const) {
      const u = await owner.userWithRole(role);
      expect((await upload(u.token, EKU)).status).toBe(403);
      expect((await t.call('POST', `/csds/${csd.id}/deactivate`, { token: u.token })).status).toBe(403);
      expect((await t.call('DELETE', `/csds/${csd.id}`, { token: u.token })).status).toBe(403);
      expect((await t.call('GET', `/csds/${csd.id}`, { token: u.token })).status).toBe(200);
    }
  });
});

describe('the loaded CSD signs', () => {
  test('sign() verifies with the certificate public key (RSA-SHA256, base64)', async () => {
    const reg = await issuer(t);
    await upload(reg.token, EKU);
    const signer = (await activeSigner({ db: t.db, now: () => t.clock.now, masterKey: TEST_MASTER_KEY }, reg.tenant.id, 'test'))!;
    expect(signer.noCertificado).toBe('30001000000500003416');
    expect(signer.rfc).toBe('EKU9003173C9');
    expect(Buffer.from(signer.certificadoBase64, 'base64').equals(EKU.cer)).toBe(true);
    expect(signer.validAt(new Date('2026-01-01'))).toBe(true);
    expect(signer.validAt(new Date('2028-01-01'))).toBe(false);
    const cadena = '||4.0|A|1|2026-11-21T10:00:00|ÑANDÚ €||';
    const sello = await signer.sign(cadena);
    expect(sello).toMatch(/^[A-Za-z0-9+/]{342}==$/);
    expect(verify('sha256', Buffer.from(cadena, 'utf8'), publicKeyOf(EKU.cer), Buffer.from(sello, 'base64'))).toBe(true);
    expect(verify('sha256', Buffer.from(cadena + 'x', 'utf8'), publicKeyOf(EKU.cer), Buffer.from(sello, 'base64'))).toBe(false);
  });
});

describe('cross-check with OpenSSL', () => {
  test.skipIf(!Bun.which('openssl'))('openssl dgst -sha256 -verify accepts the seal with the certificate public key', async () => {
    const reg = await issuer(t);
    await upload(reg.token, EKU);
    const signer = (await activeSigner({ db: t.db, now: () => t.clock.now, masterKey: TEST_MASTER_KEY }, reg.tenant.id, 'test'))!;
    const dir = mkdtempSync(join(tmpdir(), 'cfdi-openssl-'));
    const cadena = '||4.0|A|1|2026-11-21T10:00:00|ÑANDÚ||';
    writeFileSync(join(dir, 'cadena.txt'), cadena);
    writeFileSync(join(dir, 'sello.bin'), Buffer.from(await signer.sign(cadena), 'base64'));
    writeFileSync(join(dir, 'pub.pem'), publicKeyOf(EKU.cer).export({ type: 'spki', format: 'pem' }));
    const run = Bun.spawnSync(['openssl', 'dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sello.bin'), join(dir, 'cadena.txt')]);
    expect(run.stdout.toString()).toContain('Verified OK');
    writeFileSync(join(dir, 'cadena.txt'), cadena + ' ');
    const bad = Bun.spawnSync(['openssl', 'dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sello.bin'), join(dir, 'cadena.txt')]);
    expect(bad.exitCode).not.toBe(0);
  });
});

describe('expiry sweep', () => {
  test('csd.por_vencer once within 30 days; expired and csd.vencido after valid_to', async () => {
    const reg = await issuer(t);
    const csd = (await upload(reg.token, EKU)).json;
    const events = () => t.query<{ type: string; data: string }>(sql`select type, data from events where tenant_id = ${reg.tenant.id} order by id`);
    expect(await sweepCsdExpiry(t.db, new Date('2027-04-01T00:00:00Z'))).toEqual({ expired: 0, noticed: 0 });
    await sweepCsdExpiry(t.db, new Date('2027-04-20T00:00:00Z'));
    await sweepCsdExpiry(t.db, new Date('2027-04-21T00:00:00Z'));
    expect((await events()).map((e) => e.type)).toEqual(['csd.por_vencer']);
    expect(JSON.parse((await events())[0]!.data)).toEqual({
      csd_id: csd.id,
      rfc: 'EKU9003173C9',
      serial_number: '30001000000500003416',
      valid_to: '2027-05-18T11:43:51.000Z',
    });
    await sweepCsdExpiry(t.db, new Date('2027-05-18T11:43:52Z'));
    await sweepCsdExpiry(t.db, new Date('2027-05-19T00:00:00Z'));
    expect((await events()).map((e) => e.type)).toEqual(['csd.por_vencer', 'csd.vencido']);
    expect((await t.call('GET', `/csds/${csd.id}`, { token: reg.token })).json.status).toBe('expired');
    expect((await t.call('POST', `/csds/${csd.id}/activate`, { token: reg.token })).status).toBe(409);
  });
});

import { describe, expect, test } from 'bun:test';
import { verify } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import forge from 'node-forge';
import { parseCertificate, publicKeyOf } from '../../../src/cfdi/csd.ts';
import { auditLog, fiels } from '../../../src/db/schema/index.ts';
import { SecretBoxError, openSecret } from '../../../src/lib/secret-box.ts';
import { fielSigner } from '../../../src/invoices/fiel/service.ts';
import { createTestApp, csdFiles, csdForm, issuer, TENANTS, TEST_MASTER_KEY } from '../../helpers.ts';

const EKU_FIEL = csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9');
const EKU_CSD = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
/** SAT's 2019 test FIEL of FUNK671228PH6, expired on 2023-05-27 (tests/fixtures/sat/PROVENANCE.md). */
const FUNK_FIEL_EXPIRED = csdFiles('FUNK671228PH6_FIEL_2019_expired', 'FUNK671228PH6');

const t = await createTestApp();

async function put(token: string, files: Parameters<typeof csdForm>[0]) {
  const res = await t.app.request('/api/v1/fiel', { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: csdForm(files) });
  return { status: res.status, json: (await res.json()) as any };
}
const rowOf = async (tenantId: string) => (await t.db.select().from(fiels).where(eq(fiels.tenantId, tenantId)))[0];
const auditOf = async (tenantId: string, action: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, action)));

describe('PUT /fiel stores the e.firma; GET /fiel shows its certificate data', () => {
  test("EKU9003173C9's FIEL → 201, GET shows it without the key; a second PUT replaces it (200), audited as such", async () => {
    const reg = await issuer(t);
    const res = await put(reg.token, EKU_FIEL);
    expect(res.status).toBe(201);
    const expected = {
      rfc: 'EKU9003173C9',
      nombre: 'ESCUELA KEMPER URGATE SA DE CV',
      serial_number: '30001000000500003415',
      valid_from: '2023-05-18T04:37:14.000Z',
      valid_to: '2027-05-17T04:37:14.000Z',
      expired: false,
    };
    expect(res.json).toMatchObject(expected);
    expect(res.json.id).toStartWith('fiel_');
    expect(res.json.uploaded_at).toBe(t.clock.now.toISOString());
    const got = await t.call('GET', '/fiel', { token: reg.token });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(res.json);
    expect(Object.keys(got.json).sort()).toEqual(['expired', 'id', 'nombre', 'rfc', 'serial_number', 'uploaded_at', 'valid_from', 'valid_to']);
    expect(got.text).not.toContain('key');

    // The FIEL is the taxpayer's: the tenant's live credentials see the same one.
    const live = await reg.createKey('live');
    expect((await t.call('GET', '/fiel', { token: live.key })).json.id).toBe(res.json.id);

    const again = await put(reg.token, EKU_FIEL);
    expect(again.status).toBe(200);
    expect(again.json.id).not.toBe(res.json.id);
    expect((await t.db.select().from(fiels).where(eq(fiels.tenantId, reg.tenant.id))).length).toBe(1);
    const [stored] = await auditOf(reg.tenant.id, 'putFiel');
    expect(stored).toMatchObject({ status: 201, resourceType: 'fiel', resourceId: res.json.id, method: 'PUT' });
    const [replaced] = await auditOf(reg.tenant.id, 'replaceFiel');
    expect(replaced).toMatchObject({ status: 200, resourceType: 'fiel', resourceId: again.json.id, method: 'PUT' });
  });

  test('a stored FIEL past valid_to: GET says expired, fielSigner refuses it (SAT would)', async () => {
    const reg = await issuer(t);
    await put(reg.token, EKU_FIEL);
    await t.exec(sql`update fiels set valid_to = '2026-01-01T00:00:00.000Z' where tenant_id = ${reg.tenant.id}`);
    const got = await t.call('GET', '/fiel', { token: reg.token });
    expect(got.json).toMatchObject({ valid_to: '2026-01-01T00:00:00.000Z', expired: true });
    const deps = { db: t.db, now: () => t.clock.now, masterKey: TEST_MASTER_KEY };
    await expect(fielSigner(deps, reg.tenant.id, { environment: 'test', purpose: 'x' })).rejects.toThrow('FIEL expired');
    expect(await auditOf(reg.tenant.id, 'fiel.used')).toEqual([]);
  });

  test('GET /fiel is 404 when the tenant has none', async () => {
    const reg = await issuer(t);
    const res = await t.call('GET', '/fiel', { token: reg.token });
    expect(res.status).toBe(404);
  });
});

describe('PUT /fiel refuses what is not the tenant’s current e.firma, naming the field', () => {
  const cases: [string, keyof typeof TENANTS, Parameters<typeof csdForm>[0], string, RegExp][] = [
    ['a CSD', 'EKU', EKU_CSD, 'cer', /is a CSD .*Descarga Masiva .*e\.firma/],
    ['a wrong password', 'EKU', { ...EKU_FIEL, password: 'wrong-password' }, 'password', /does not open/],
    ['the key of another certificate (the CSD’s)', 'EKU', { ...EKU_FIEL, key: EKU_CSD.key, password: EKU_CSD.password }, 'key', /does not belong/],
    ['the FIEL of another RFC', 'FUNK', EKU_FIEL, 'cer', /belongs to RFC EKU9003173C9, not to this tenant's RFC FUNK671228PH6/],
    ['an expired FIEL', 'FUNK', FUNK_FIEL_EXPIRED, 'cer', /expired on 2023-05-27T21:51:05.000Z \(valid from 2019-05-28T21:51:05.000Z\)/],
  ];
  for (const [what, tenant, files, field, issue] of cases) {
    test(`${what} → 400 naming ${field}; nothing stored`, async () => {
      const reg = await issuer(t, { tenant: TENANTS[tenant] });
      const res = await put(reg.token, files);
      expect(res.status).toBe(400);
      expect(res.json.error.message).toBe('Invalid FIEL');
      expect(res.json.error.details).toHaveLength(1);
      expect(res.json.error.details[0].field).toBe(field);
      expect(res.json.error.details[0].issue).toMatch(issue);
      expect(await rowOf(reg.tenant.id)).toBeUndefined();
    });
  }

  test("with a live credential, SAT's test FIEL → 400: SAT's live services refuse it", async () => {
    const reg = await issuer(t);
    const live = await reg.createKey('live');
    const res = await put(live.key, EKU_FIEL);
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual([{ field: 'cer', issue: expect.stringMatching(/^is a test FIEL/) }]);
  });

  test('ten uploads that try the password per tenant an hour, test and live together; then 429', async () => {
    const reg = await issuer(t);
    const live = await reg.createKey('live');
    for (let i = 0; i < 10; i++) expect((await put(reg.token, { ...EKU_FIEL, password: 'wrong-password' })).status).toBe(400);
    // A certificate refused before the key is opened costs no key derivation and does not count.
    expect((await put(reg.token, EKU_CSD)).status).toBe(400);
    const res = await put(reg.token, EKU_FIEL);
    expect(res.status).toBe(429);
    expect(res.json.error.message).toBe('Too many FIEL uploads');
    expect(res.json.error.details[0].issue).toStartWith('at most 10 FIEL uploads that try a password per hour per tenant; retry in ');
    // The live credential's test FIEL is refused before the count; the count is the tenant's, as the FIEL is.
    expect((await put(live.key, EKU_FIEL)).status).toBe(400);
    t.clock.advance(3_600_000);
    expect((await put(reg.token, EKU_FIEL)).status).toBe(201);
  });

  test('POST /csds still refuses the FIEL, and still takes the CSD', async () => {
    const reg = await issuer(t);
    const fiel = await t.app.request('/api/v1/csds', { method: 'POST', headers: { authorization: `Bearer ${reg.token}` }, body: csdForm(EKU_FIEL) });
    expect(fiel.status).toBe(400);
    expect(JSON.stringify(await fiel.json())).toContain('is a FIEL');
    const csd = await t.app.request('/api/v1/csds', { method: 'POST', headers: { authorization: `Bearer ${reg.token}` }, body: csdForm(EKU_CSD) });
    expect(csd.status).toBe(201);
  });
});

describe('roles and tenants', () => {
  test('VIEWER and OPERATOR: PUT and DELETE → 403, GET → 200; another tenant sees 404 and its DELETE deletes nothing of it', async () => {
    const owner = await issuer(t);
    expect((await put(owner.token, EKU_FIEL)).status).toBe(201);
    for (const role of ['VIEWER', 'OPERATOR'] as const) {
      const u = await owner.userWithRole(role);
      expect((await put(u.token, EKU_FIEL)).status).toBe(403);
      expect((await t.call('DELETE', '/fiel', { token: u.token })).status).toBe(403);
      expect((await t.call('GET', '/fiel', { token: u.token })).status).toBe(200);
    }
    const other = await issuer(t);
    expect((await t.call('GET', '/fiel', { token: other.token })).status).toBe(404);
    expect((await t.call('DELETE', '/fiel', { token: other.token })).status).toBe(204);
    expect((await t.call('GET', '/fiel', { token: owner.token })).status).toBe(200);
  });

  test('DELETE /fiel → 204, the row (with its encrypted key) is gone, GET → 404; audited; a second DELETE → 204', async () => {
    const reg = await issuer(t);
    const stored = await put(reg.token, EKU_FIEL);
    const del = await t.call('DELETE', '/fiel', { token: reg.token });
    expect(del.status).toBe(204);
    expect(await rowOf(reg.tenant.id)).toBeUndefined();
    expect((await t.call('GET', '/fiel', { token: reg.token })).status).toBe(404);
    const [deleted] = await auditOf(reg.tenant.id, 'deleteFiel');
    expect(deleted).toMatchObject({ status: 204, resourceId: stored.json.id, method: 'DELETE' });
    // Idempotent: none left is deleted already.
    expect((await t.call('DELETE', '/fiel', { token: reg.token })).status).toBe(204);
  });
});

describe('custody: the key at rest, and fielSigner', () => {
  test('the stored key is neither PEM nor DER plaintext, and does not open with another master key', async () => {
    const reg = await issuer(t);
    await put(reg.token, EKU_FIEL);
    const row = (await rowOf(reg.tenant.id))!;
    const sealed = Buffer.from(row.privateKeySealed);
    const plaintext = openSecret(TEST_MASTER_KEY, sealed, row.id);
    // Unencrypted PKCS#8 DER: a SEQUENCE with version 0 and the rsaEncryption OID; none of it is in the row.
    expect(plaintext.subarray(0, 1)).toEqual(Buffer.from([0x30]));
    expect(sealed.includes(plaintext.subarray(0, 64))).toBe(false);
    expect(sealed.includes(Buffer.from('06092a864886f70d010101', 'hex'))).toBe(false);
    expect(sealed.toString('latin1')).not.toContain('PRIVATE KEY');
    expect(sealed.includes(EKU_FIEL.key.subarray(0, 64))).toBe(false);
    expect(() => openSecret(Buffer.alloc(32, 8), sealed, row.id)).toThrow(SecretBoxError);
    // Bound to its row: copied onto another id it does not open either.
    expect(() => openSecret(TEST_MASTER_KEY, sealed, 'fiel_other')).toThrow(SecretBoxError);
  });

  test('fielSigner signs with RSA-SHA1 and RSA-SHA256 under the certificate, each signature audited as fiel.used with its purpose', async () => {
    const reg = await issuer(t);
    const deps = { db: t.db, now: () => t.clock.now, masterKey: TEST_MASTER_KEY };
    expect(await fielSigner(deps, reg.tenant.id, { environment: 'test', purpose: 'descarga-masiva:autenticacion' })).toBeUndefined();
    const stored = await put(reg.token, EKU_FIEL);
    const signer = (await fielSigner(deps, reg.tenant.id, { environment: 'test', purpose: 'descarga-masiva:autenticacion', requestId: 'req_1' }))!;
    expect(signer).toMatchObject({ rfc: 'EKU9003173C9', noCertificado: '30001000000500003415' });
    expect(signer.certificateDer).toEqual(EKU_FIEL.cer);
    const publicKey = publicKeyOf(signer.certificateDer);
    const text = '<SignedInfo>…</SignedInfo>';
    for (const digest of ['sha1', 'sha256'] as const) {
      const signature = await signer.sign(text, digest);
      expect(verify(digest, Buffer.from(text), publicKey, Buffer.from(signature, 'base64'))).toBe(true);
      expect(verify(digest === 'sha1' ? 'sha256' : 'sha1', Buffer.from(text), publicKey, Buffer.from(signature, 'base64'))).toBe(false);
    }
    const used = await auditOf(reg.tenant.id, 'fiel.used');
    expect(used.map((u) => u.method).sort()).toEqual(['SIGN SHA1', 'SIGN SHA256']);
    for (const u of used) {
      expect(u).toMatchObject({
        actorType: 'system',
        path: 'descarga-masiva:autenticacion',
        resourceId: stored.json.id,
        requestId: 'req_1',
        environment: 'test',
      });
    }
    // With another master key the key does not open: nothing signs.
    await expect(fielSigner({ ...deps, masterKey: Buffer.alloc(32, 8) }, reg.tenant.id, { environment: 'test', purpose: 'x' })).rejects.toThrow(SecretBoxError);
  });
});

describe('a CSD or a FIEL: told apart by key usage, not by the OU', () => {
  /** A certificate as SAT writes them (RFC in x500UniqueIdentifier, 20-digit serial), with the given OU and key usage. */
  function certificate(ou: string | undefined, usage: 'signs only' | 'FIEL'): Buffer {
    const keys = forge.pki.rsa.generateKeyPair(1024);
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = Buffer.from('30001000000500009999').toString('hex');
    cert.validity.notBefore = new Date('2025-01-01T00:00:00Z');
    cert.validity.notAfter = new Date('2029-01-01T00:00:00Z');
    const subject = [
      { shortName: 'CN', value: 'ESCUELA KEMPER URGATE SA DE CV' },
      { type: '2.5.4.45', value: 'EKU9003173C9' },
      ...(ou ? [{ shortName: 'OU', value: ou }] : []),
    ];
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.setExtensions(
      usage === 'signs only'
        ? [{ name: 'keyUsage', digitalSignature: true, nonRepudiation: true }]
        : [
            { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, dataEncipherment: true, keyAgreement: true },
            { name: 'extKeyUsage', emailProtection: true, clientAuth: true },
          ],
    );
    cert.sign(keys.privateKey, forge.md.sha256.create());
    return Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  }

  test("SAT's test certificates: the CSDs (OU, signs only) and the FIELs (no OU, enciphers, client authentication)", () => {
    expect(parseCertificate(EKU_CSD.cer).kind).toBe('CSD');
    expect(parseCertificate(csdFiles('FUNK671228PH6_CSD', 'FUNK671228PH6').cer).kind).toBe('CSD');
    expect(parseCertificate(EKU_FIEL.cer).kind).toBe('FIEL');
    expect(parseCertificate(FUNK_FIEL_EXPIRED.cer).kind).toBe('FIEL');
  });

  test('a certificate that only signs is a CSD without an OU, and one with the FIEL key usage is a FIEL with one', () => {
    expect(parseCertificate(certificate(undefined, 'signs only')).kind).toBe('CSD');
    expect(parseCertificate(certificate('Sucursal 1', 'FIEL')).kind).toBe('FIEL');
  });
});

import { describe, expect, spyOn, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../src/cfdi/cadena.ts';
import { parseXml } from '../../src/cfdi/xml.ts';
import { jobs } from '../../src/db/schema/index.ts';
import type { Pac, StampOptions, StampResult } from '../../src/pac/types.ts';
import { createSandboxPac } from '../../src/pac/sandbox.ts';
import { createTestApp, ingreso, issuer, TEST_ENGINE, testSandboxSat, until } from '../helpers.ts';
import { cadenaFromSatXslt, tfdCadenaFromSatXslt, validateAgainstSatXsd } from '../sat/verify.ts';

const invoice = ingreso;

/** A live PAC whose answers the test scripts; it stamps like the sandbox when told to succeed. */
function scriptedPac(script: ('ok' | 'down' | 'reject')[]): Pac & { calls: number } {
  const sandbox = createSandboxPac(testSandboxSat());
  const pac = {
    ...sandbox,
    calls: 0,
    async stamp(xml: string, options: StampOptions): Promise<StampResult> {
      const step = script[Math.min(pac.calls++, script.length - 1)];
      if (step === 'down') return { ok: false, class: 'provider', message: 'provider down' };
      if (step === 'reject') return { ok: false, class: 'definitive', code: '301', message: 'XML mal formado' };
      return sandbox.stamp(xml, options);
    },
  };
  return pac;
}

async function setup(livePac?: Pac) {
  const t = await createTestApp({ livePacs: livePac && [livePac], wakeOnEnqueue: false });
  const reg = await issuer(t, { keys: ['test', 'live'], csd: ['test', 'live'] });
  const { key: test, live } = reg;
  const events = async () =>
    (await t.query<{ type: string }>(sql`select type from events where tenant_id = ${reg.tenant.id} and type like ${'cfdi.%'} order by id`)).map((e) => e.type);
  return { t, test, live, events };
}

describe('queued stamping', () => {
  test('the sandbox without a scenario stamps in the request: 201, cfdi.timbrado, no stamping job left to run', async () => {
    const { t, test: key, events } = await setup();
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice() });
    expect(res.status).toBe(201);
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: key })).json).toMatchObject({ status: 'vigente', uuid: res.json.uuid });
    expect(await events()).toEqual(['cfdi.timbrado']);
    // SQLite stamps in the issuing transaction: no job. Where the folio's transaction commits before the seal
    // (PostgreSQL), the job that would seal it after a crash is closed with the stamp.
    const left = await t.query<{ status: string }>(sql`select status from jobs`);
    expect(left.map((j) => j.status)).toEqual(TEST_ENGINE === 'postgres' ? ['done'] : []);
  });

  test('pac_unavailable → 202 en_cola; the scheduler stamps it: vigente, valid XML, events encolado then timbrado', async () => {
    const { t, test: key, events } = await setup();
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice(), headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    expect(res.status).toBe(202);
    expect(Object.keys(res.json).sort()).toEqual(['created_at', 'external_id', 'id', 'mensaje', 'metadata', 'status', 'tipo', 'uuid']);
    expect(res.json).toMatchObject({ uuid: null, status: 'en_cola', tipo: 'I' });
    expect(res.json.mensaje).toContain(`GET /api/v1/cfdis/${res.json.id}`);
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: key })).json.status).toBe('en_cola');
    expect(await events()).toEqual(['cfdi.encolado']);
    expect((await t.call('GET', '/health')).json.info.queue.depth).toBe(1);

    t.clock.advance(5_000);
    await t.app.worker.drain();
    const done = await t.call('GET', `/cfdis/${res.json.id}`, { token: key });
    expect(done.json.status).toBe('vigente');
    expect(done.json.uuid).toMatch(/^[0-9A-F-]{36}$/);
    expect(await events()).toEqual(['cfdi.encolado', 'cfdi.timbrado']);
    const xml = await (await t.app.request(`/api/v1/cfdis/${done.json.uuid}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
    expect((await validateAgainstSatXsd(xml)).valid).toBe(true);
    const root = parseXml(xml);
    expect(cadenaOriginal(root)).toBe(await cadenaFromSatXslt(xml));
    const key1 = createPublicKey(new X509Certificate(Buffer.from(root.attrs.Certificado!, 'base64')).publicKey.export({ type: 'spki', format: 'pem' }));
    expect(verify('sha256', Buffer.from(cadenaOriginal(root)), key1, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
    expect(done.json.cadena_original_sat).toBe(await tfdCadenaFromSatXslt(xml));
    expect((await t.call('GET', '/health')).json.info.queue.depth).toBe(0);
  });

  // Where the folio's transaction commits before the seal (PostgreSQL): an invoice whose request did not seal it (the
  // process died, or its signature failed) is sealed by its job from the draft the job carries, for the folio it took.
  test.skipIf(TEST_ENGINE !== 'postgres')(
    'the folio taken but no seal made: 202 queued; the job seals it from its draft, for its folio, and stamps it',
    async () => {
      const { t, test: key, events } = await setup();
      const sign = spyOn(crypto.subtle, 'sign').mockImplementationOnce(() => Promise.reject(new Error('the signing thread is gone')));
      const res = await t.call('POST', '/cfdis', { token: key, body: invoice() });
      sign.mockRestore();
      expect(res.status).toBe(202);
      expect(res.json).toMatchObject({ status: 'en_cola', uuid: null });
      expect(await events()).toEqual(['cfdi.encolado']);
      const [doc] = await t.query<{ n: number }>(sql`select length(xml)::int as n from cfdi_documents where cfdi_id = ${res.json.id}`);
      expect(doc!.n).toBe(0);

      t.clock.advance(5_000);
      await t.app.worker.drain();
      const done = await t.call('GET', `/cfdis/${res.json.id}`, { token: key });
      expect(done.json).toMatchObject({ status: 'vigente', folio: 1 });
      expect(await events()).toEqual(['cfdi.encolado', 'cfdi.timbrado']);
      const xml = await (await t.app.request(`/api/v1/cfdis/${done.json.uuid}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
      expect((await validateAgainstSatXsd(xml)).valid).toBe(true);
      const root = parseXml(xml);
      expect(root.attrs).toMatchObject({ Serie: 'A', Folio: '1' });
      const certificate = createPublicKey(
        new X509Certificate(Buffer.from(root.attrs.Certificado!, 'base64')).publicKey.export({ type: 'spki', format: 'pem' }),
      );
      expect(verify('sha256', Buffer.from(cadenaOriginal(root)), certificate, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
      expect((await t.call('POST', '/cfdis', { token: key, body: invoice() })).json.folio).toBe(2);
    },
  );

  test('pac_slow → 202; the late answer is recorded once and the job finds nothing left to do', async () => {
    const { t, test: key, events } = await setup();
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice(), headers: { 'x-sandbox-scenario': 'pac_slow' } });
    expect(res.status).toBe(202);
    // The sandbox answers after 600 ms, past the 300 ms budget: its late answer is recorded.
    await until(async () => (await t.call('GET', `/cfdis/${res.json.id}`, { token: key })).json.status === 'vigente', 'the late answer is recorded');
    t.clock.advance(5_000);
    await t.app.worker.drain();
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: key });
    expect(got.json.status).toBe('vigente');
    expect(await events()).toEqual(['cfdi.encolado', 'cfdi.timbrado']);
    expect(await t.count(jobs, eq(jobs.status, 'done'))).toBe(1);
  });

  test('pac_rejected → 422 with the provider code; fallido + cfdi.fallido; the folio is not reused', async () => {
    const { t, test: key, events } = await setup();
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice(), headers: { 'x-sandbox-scenario': 'pac_rejected' } });
    expect(res.status).toBe(422);
    expect(res.json.error.details[0].issue).toContain('CFDI40999');
    const rows = await t.query<{ id: string; status: string; folio: number }>(sql`select id, status, folio from cfdis`);
    expect(rows).toMatchObject([{ status: 'fallido', folio: 1 }]);
    expect((await t.call('GET', `/cfdis/${rows[0]!.id}`, { token: key })).json.status).toBe('fallido');
    expect(await events()).toEqual(['cfdi.fallido']);
    const next = await t.call('POST', '/cfdis', { token: key, body: invoice() });
    expect(next.json.folio).toBe(2);
  });

  test('queued, then rejected by the provider → fallido + cfdi.fallido', async () => {
    const pac = scriptedPac(['down', 'reject']);
    const { t, live, events } = await setup(pac);
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice() });
    expect(res.status).toBe(202);
    t.clock.advance(5_000);
    await t.app.worker.drain();
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json.status).toBe('fallido');
    expect(await events()).toEqual(['cfdi.encolado', 'cfdi.fallido']);
    expect(pac.calls).toBe(2);
  });

  test('a live PAC down twice, then up: retried with backoff until stamped', async () => {
    const pac = scriptedPac(['down', 'down', 'ok']);
    const { t, live, events } = await setup(pac);
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice() });
    expect(res.status).toBe(202);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(10 * 60_000);
      await t.app.worker.drain();
    }
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: live });
    expect(got.json.status).toBe('vigente');
    expect(await events()).toEqual(['cfdi.encolado', 'cfdi.timbrado']);
    expect(pac.calls).toBe(3);
  });

  test('X-Sandbox-Scenario: ignored with a Warning in live mode; an unknown value is 400', async () => {
    const { t, test: key, live } = await setup(scriptedPac(['ok']));
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice(), headers: { 'x-sandbox-scenario': 'pac_rejected' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('ignored in live mode');
    const bad = await t.call('POST', '/cfdis', { token: key, body: invoice(), headers: { 'x-sandbox-scenario': 'explode' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('x-sandbox-scenario');
  });
});

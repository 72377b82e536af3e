import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { intakeReceived } from '../../../src/invoices/received/intake.ts';
import { refreshStaleReceived } from '../../../src/invoices/received/status.ts';
import { createTestApp, ICV, ingreso, issuer, READY } from '../../helpers.ts';
import { startSatMock } from '../../sat-mock/sat-mock.ts';

/** The SAT status refresh of received CFDI, the Lista 69-B flag, and their events (issue 39, build items 3 and 7). */
const mock = startSatMock();
afterAll(() => mock.stop());
const t = await createTestApp({ satConsultaUrl: mock.consultaUrl });
let emisor: Awaited<ReturnType<typeof issuer>>;
let receiver: Awaited<ReturnType<typeof issuer>>;
const RECEIVER_TENANT = { rfc: ICV.rfc, nombre: ICV.nombre, regimen_fiscal: '601', codigo_postal: '33826' };

async function issuedXml(headers?: Record<string, string>) {
  const res = await t.call('POST', '/cfdis', { token: emisor.key, body: ingreso(), headers });
  expect(res.status).toBe(201);
  const xml = await (await t.app.request(`/api/v1/cfdis/${res.json.id}/xml`, { headers: { authorization: `Bearer ${emisor.key}` } })).text();
  return { id: res.json.id as string, uuid: res.json.uuid as string, xml };
}
async function receive(who: { tenant: { id: string } }, xml: string, environment: 'test' | 'live' = 'test') {
  const [out] = await intakeReceived(t.app.receivedDeps, { tenantId: who.tenant.id, environment }, [{ name: 'f.xml', bytes: new TextEncoder().encode(xml) }]);
  return out!;
}
const events = async (tenantId: string) =>
  (
    await t.query<{ type: string; data: string }>(sql`select type, data from events where tenant_id = ${tenantId} and type like 'received_cfdi.%' order by id`)
  ).map((e) => ({ type: e.type, id: (typeof e.data === 'string' ? JSON.parse(e.data) : e.data).received_cfdi_id }));
const refresh = (token: string, id: string) => t.call('POST', `/received-cfdis/${id}/refresh`, { token });

beforeAll(async () => {
  emisor = await issuer(t, READY);
  receiver = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000, keys: ['test', 'live'], tenant: RECEIVER_TENANT });
}, 60_000);

describe('POST /received-cfdis/{id}/refresh (test mode: the sandbox SAT)', () => {
  test('vigente, then "En proceso" (cancellation_requested), then cancelado (cancelled): each event once, on the change', async () => {
    const doc = await issuedXml();
    const got = await receive(receiver, doc.xml);
    expect(got.result).toBe('created');
    const first = await refresh(receiver.key, got.id!);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ id: got.id, uuid: doc.uuid, sat_status: 'vigente', validacion_efos: '200', estatus_cancelacion: null, efos_69b: null });
    expect(first.json.sat_checked_at).toBe(t.clock.now.toISOString());

    const cancel = await t.call('POST', `/cfdis/${doc.id}/cancel`, {
      token: emisor.key,
      body: { motivo: '02' },
      headers: { 'x-sandbox-scenario': 'cancel_pending_accept' },
    });
    expect(cancel.status).toBe(202);
    const pending = await refresh(receiver.key, got.id!);
    expect(pending.json).toMatchObject({ sat_status: 'vigente', estatus_cancelacion: 'En proceso' });
    await refresh(receiver.key, got.id!); // the same answer again: no second event
    t.clock.advance(600_000); // past the sandbox receiver's answer
    const cancelled = await refresh(receiver.key, got.id!);
    expect(cancelled.json.sat_status).toBe('cancelado');
    await refresh(receiver.key, got.id!);
    expect(await events(receiver.tenant.id)).toEqual([
      { type: 'received_cfdi.created', id: got.id },
      { type: 'received_cfdi.cancellation_requested', id: got.id },
      { type: 'received_cfdi.cancelled', id: got.id },
    ]);
  });

  test("another tenant's id → 404; VIEWER → 403; a document without a UUID → 409", async () => {
    const doc = await issuedXml();
    const got = await receive(receiver, doc.xml);
    const other = await issuer(t, { keys: ['test'] });
    expect((await refresh(other.key, got.id!)).status).toBe(404);
    expect((await refresh(receiver.live, got.id!)).status).toBe(404); // the test row is not live's
    const viewer = await receiver.userWithRole('VIEWER');
    expect((await refresh(viewer.token, got.id!)).status).toBe(403);
    const broken = await receive(receiver, doc.xml.slice(0, 200));
    const res = await refresh(receiver.key, broken.id!);
    expect(res.status).toBe(409);
    expect(res.json.error.details[0].field).toBe('id');
  });
});

describe('live mode: ConsultaCFDIService at SAT_CONSULTA_URL (the SAT mock)', () => {
  test('ValidacionEFOS 100 raises efos_listed once; SAT unreachable → 503 and nothing stored', async () => {
    const doc = await issuedXml();
    const got = await receive(receiver, doc.xml, 'live'); // stored invalid in live (a sandbox stamp), still asked
    mock.control.documents.push({ xml: doc.xml });
    expect((await refresh(receiver.live, got.id!)).json).toMatchObject({ sat_status: 'vigente', validacion_efos: '200' });
    mock.control.consulta.set(doc.uuid.toUpperCase(), { ValidacionEFOS: '100' });
    expect((await refresh(receiver.live, got.id!)).json).toMatchObject({ validacion_efos: '100' });
    await refresh(receiver.live, got.id!);
    const listed = (await events(receiver.tenant.id)).filter((e) => e.id === got.id && e.type === 'received_cfdi.efos_listed');
    expect(listed.length).toBe(1);

    const down = await createTestApp({ db: t.db, satConsultaUrl: 'http://127.0.0.1:9/ConsultaCFDIService.svc' });
    const before = (await t.query<{ sat_checked_at: string }>(sql`select sat_checked_at from received_cfdis where id = ${got.id}`))[0];
    const res = await down.call('POST', `/received-cfdis/${got.id}/refresh`, { token: receiver.live });
    expect(res.status).toBe(503);
    expect((await t.query<{ sat_checked_at: string }>(sql`select sat_checked_at from received_cfdis where id = ${got.id}`))[0]).toEqual(before!);
  });
});

describe('the periodic refresh', () => {
  test('never-checked first, a bounded batch per call, then only those not checked for the given age', async () => {
    const fresh = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000, keys: ['test'], tenant: RECEIVER_TENANT });
    for (let i = 0; i < 3; i++) await receive(fresh, (await issuedXml()).xml);
    const unchecked = async () =>
      Number(
        (await t.query<{ n: number }>(sql`select count(*) as n from received_cfdis where tenant_id = ${fresh.tenant.id} and sat_checked_at is null`))[0]!.n,
      );
    expect(await unchecked()).toBe(3);
    // Older rows of other tests are due too: run until this tenant's are done, a batch of 2 at a time.
    for (let i = 0; i < 20 && (await unchecked()) > 0; i++)
      expect((await refreshStaleReceived(t.app.receivedStatus, { olderThanMs: 3_600_000, batch: 2 })).refreshed).toBeLessThanOrEqual(2);
    expect(await unchecked()).toBe(0);
    expect(await refreshStaleReceived(t.app.receivedStatus, { olderThanMs: 3_600_000, batch: 100 })).toEqual({ refreshed: 0, failed: 0 });
    t.clock.advance(3_600_001);
    expect((await refreshStaleReceived(t.app.receivedStatus, { olderThanMs: 3_600_000, batch: 100 })).refreshed).toBeGreaterThanOrEqual(3);
  });
});

describe('the Lista 69-B flag', () => {
  test("set when the tenant's list loads and at intake, efos_listed once per row; desvirtuado clears the listing", async () => {
    const who = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000, keys: ['test'], tenant: RECEIVER_TENANT });
    const before = await receive(who, (await issuedXml()).xml);
    const csv = (situacion: string) => `fecha\r\ntitulo\r\nNo,RFC,Nombre,Situación\r\n1,EKU9003173C9,ESCUELA KEMPER URGATE,${situacion}\r\n`;
    const upload = (body: string) =>
      t.app.request('/api/v1/sat-lists/69b', { method: 'POST', headers: { authorization: `Bearer ${who.key}`, 'content-type': 'text/csv' }, body });
    expect((await upload(csv('Presunto'))).status).toBe(200);
    const after = await receive(who, (await issuedXml()).xml);
    const flags = async () =>
      (await t.query<{ id: string; efos_69b: string | null }>(sql`select id, efos_69b from received_cfdis where tenant_id = ${who.tenant.id} order by id`)).map(
        (r) => r.efos_69b,
      );
    expect(await flags()).toEqual(['presunto', 'presunto']);
    // Presunto → definitivo: listed before and after, no new event; desvirtuado: not listed.
    expect((await upload(csv('Definitivo'))).status).toBe(200);
    expect(await flags()).toEqual(['definitivo', 'definitivo']);
    expect((await upload(csv('Desvirtuado'))).status).toBe(200);
    expect(await flags()).toEqual(['desvirtuado', 'desvirtuado']);
    expect((await events(who.tenant.id)).filter((e) => e.type === 'received_cfdi.efos_listed')).toEqual([
      { type: 'received_cfdi.efos_listed', id: before.id },
      { type: 'received_cfdi.efos_listed', id: after.id },
    ]);
    // Another tenant receiving from the same issuer is not flagged by this tenant's list.
    const other = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000, keys: ['test'], tenant: RECEIVER_TENANT });
    await receive(other, (await issuedXml()).xml);
    expect((await t.query<{ efos_69b: string | null }>(sql`select efos_69b from received_cfdis where tenant_id = ${other.tenant.id}`))[0]!.efos_69b).toBeNull();
  });
});

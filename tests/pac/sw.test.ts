import { afterAll, describe, expect, test } from 'bun:test';
import { createSwPac } from '../../src/pac/sw.ts';
import { concepto, createTestApp, ingreso, issuer, until } from '../helpers.ts';
import { createSwMock } from './sw-mock.ts';
import { and, eq, sql } from 'drizzle-orm';
import { jobs } from '../../src/db/schema/index.ts';

const mock = createSwMock();
const { state, sat, ledger } = mock;
afterAll(() => mock.close());

const pacUrl = mock.url;
const pac = createSwPac({ url: pacUrl, user: 'demo', password: 'secret', timeoutMs: 400, satConsultaUrl: `${pacUrl}/ConsultaCFDIService.svc` });
const invoice = (valor: number) => ingreso({ conceptos: [concepto({ valor_unitario: valor })] });

// The app's worker runs only when a test drains it (retry): on its own it could take a retry's attempt first, and
// the test would see two attempts where it stepped one (a CI failure: vigente where en_cola was expected).
async function setup(livePac = pac) {
  const t = await createTestApp({ livePacs: [livePac], stampBudgetMs: 1000, wakeOnEnqueue: false });
  const { live } = await issuer(t, { keys: ['live'], csd: ['live'] });
  const retry = async () => {
    t.clock.advance(10 * 60_000);
    await t.app.worker.drain();
  };
  return { t, live, retry };
}

describe('SW PAC adapter against a fake PAC server', () => {
  test('success: 201 with the PAC stamp', async () => {
    const { t, live } = await setup();
    state.modes = ['ok'];
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice(101) });
    expect(res.status).toBe(201);
    expect(res.json.uuid).toMatch(/^[0-9A-F-]{36}$/);
  });

  test('rejection: 422 with the provider code and message', async () => {
    const { t, live } = await setup();
    state.modes = ['reject'];
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice(102) });
    expect(res.status).toBe(422);
    expect(res.json.error.details[0].issue).toContain('CFDI40108');
  });

  test('5xx, then success: queued (202) and retried by the scheduler', async () => {
    const { t, live, retry } = await setup();
    state.modes = ['5xx', '5xx', 'ok'];
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice(103) });
    expect(res.status).toBe(202);
    await retry();
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json.status).toBe('en_cola');
    await retry();
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json.status).toBe('vigente');
  });

  test('timeout, then success: the retry gets the earlier stamp back, never a second UUID', async () => {
    const { t, live, retry } = await setup();
    state.modes = ['hang'];
    const before = state.requests;
    const stampedBefore = ledger.records.length;
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice(104) });
    expect(res.status).toBe(202);
    await until(() => ledger.records.length > stampedBefore, 'the fake PAC stamped it'); // its answer was lost
    await retry();
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: live });
    expect(got.json.status).toBe('vigente');
    expect(state.requests - before).toBe(2);
    const xml = await (await t.app.request(`/api/v1/cfdis/${got.json.uuid}/xml`, { headers: { authorization: `Bearer ${live}` } })).text();
    expect(xml.match(/<tfd:TimbreFiscalDigital/g)).toHaveLength(1);
    expect(ledger.records.filter((r) => r.xml.includes(got.json.uuid))).toHaveLength(1);
  });

  test('refused connection: queued and retried later', async () => {
    const down = createSwPac({ url: 'http://127.0.0.1:1', user: 'demo', password: 'secret', timeoutMs: 400 });
    // Not woken by the enqueue: a worker retrying at once would be caught mid-attempt (running) by the read below.
    const { t, live } = await setup(down);
    const res = await t.call('POST', '/cfdis', { token: live, body: invoice(105) });
    expect(res.status).toBe(202);
    const [job] = await t.query<{ status: string }>(sql`select status, run_at from jobs where type = 'cfdi.stamp'`);
    expect(job!.status).toBe('queued');
  });

  test('malformed replies are errors, never stored as stamps', async () => {
    for (const mode of ['malformed', 'no-cfdi', 'foreign-stamp'] as const) {
      const { t, live, retry } = await setup();
      state.modes = [mode, mode];
      const res = await t.call('POST', '/cfdis', { token: live, body: invoice(106) });
      expect(res.status).toBe(202);
      await retry();
      const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: live });
      expect(got.json.status).toBe('en_cola');
      expect(got.json.uuid).toBeNull();
    }
  });

  test('"already stamped" without the earlier stamp is a duplicate (ask SW again, never another PAC), not a guess', async () => {
    state.modes = ['dup-without-stamp'];
    const dup = await pac.stamp('<cfdi:Comprobante Sello="never-seen"></cfdi:Comprobante>', { tenantId: 'ten_1' });
    expect(dup).toMatchObject({ ok: false, class: 'duplicate', code: '307' });
  });

  test('an expired session re-authenticates', async () => {
    const p = createSwPac({ url: pacUrl, user: 'demo', password: 'secret', timeoutMs: 400 });
    const badAuth = createSwPac({ url: pacUrl, user: 'demo', password: 'wrong', timeoutMs: 400 });
    expect(await badAuth.stamp('<cfdi:Comprobante Sello="a"/>', { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider' });
    const tokens = state.tokens;
    await p.stamp('<cfdi:Comprobante Sello="a"/>', { tenantId: 'ten_1' });
    expect(state.tokens).toBe(tokens + 1);
  });

  test("cancellation: the signed request goes to /cfdi33/cancel/xml; SAT's consultation resolves it (en proceso → cancelado)", async () => {
    const { t, live, retry } = await setup();
    const issued = await t.call('POST', '/cfdis', { token: live, body: invoice(5000) });
    expect(issued.status).toBe(201);
    const uuid = issued.json.uuid as string;
    sat.states.set(uuid, [
      { Estado: 'Vigente', EsCancelable: 'Cancelable con aceptación', EstatusCancelacion: 'En proceso' },
      { Estado: 'Vigente', EsCancelable: 'Cancelable con aceptación', EstatusCancelacion: 'En proceso' },
      { Estado: 'Cancelado', EsCancelable: 'Cancelable con aceptación', EstatusCancelacion: 'Cancelado con aceptación' },
    ]);
    const res = await t.call('POST', `/cfdis/${uuid}/cancel`, { token: live, body: { motivo: '02' } });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: 'en_proceso', estatus_cancelacion: 'En proceso' });
    const sent = sat.cancelRequests.at(-1)!;
    expect(sent.verifies).toBe(true);
    expect(sent.xml).toContain(`UUID="${uuid}" Motivo="02"`);
    expect(sat.expressions.at(-1)).toContain(`?id=${uuid}&amp;re=EKU9003173C9&amp;rr=ICV060329BY0&amp;tt=5800.0&amp;fe=`);
    const acuse = await (await t.app.request(`/api/v1/cfdis/${uuid}/cancellation/acuse.xml`, { headers: { authorization: `Bearer ${live}` } })).text();
    expect(acuse).toContain('<EstatusUUID>201</EstatusUUID>');
    await retry(); // poll: still in process
    expect((await t.call('GET', `/cfdis/${issued.json.id}`, { token: live })).json.status).toBe('cancelacion_pendiente');
    await retry(); // poll: cancelled
    expect((await t.call('GET', `/cfdis/${issued.json.id}`, { token: live })).json.status).toBe('cancelado');
    const status = await t.call('GET', `/cfdis/${uuid}/sat-status`, { token: live });
    expect(status.json).toMatchObject({
      uuid,
      Estado: 'Cancelado',
      EstatusCancelacion: 'Cancelado con aceptación',
      ValidacionEFOS: '200',
      CodigoEstatus: 'S - Comprobante obtenido satisfactoriamente.',
    });
  });

  test('cancellation failures leave the CFDI vigente: PAC rejection 422, PAC down 503; SAT consultation down 503', async () => {
    const { t, live } = await setup();
    const issued = await t.call('POST', '/cfdis', { token: live, body: invoice(300) });
    const id = issued.json.id as string;
    sat.cancelModes = ['reject'];
    const rejected = await t.call('POST', `/cfdis/${id}/cancel`, { token: live, body: { motivo: '03' } });
    expect(rejected.status).toBe(422);
    expect(rejected.json.error.details[0]).toMatchObject({ field: 'pac', issue: expect.stringContaining('205') });
    sat.cancelModes = ['5xx'];
    const down = await t.call('POST', `/cfdis/${id}/cancel`, { token: live, body: { motivo: '03' } });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('30');
    const c = await t.call('GET', `/cfdis/${id}/cancellation`, { token: live });
    expect(c.json).toMatchObject({ status: 'fallido', cfdi_status: 'vigente', motivo_rechazo: expect.stringContaining('HTTP 502') });
    // Its stamp first (stamped by SW over the network: a move from en_cola, with its history row), then the two failed cancellations.
    expect(c.json.historial.map((h: any) => h.to)).toEqual(['vigente', 'cancelacion_pendiente', 'vigente', 'cancelacion_pendiente', 'vigente']);
    sat.consultDown = true;
    try {
      const status = await t.call('GET', `/cfdis/${id}/sat-status`, { token: live });
      expect(status.status).toBe(503);
      expect(status.json.error.details[0].issue).toContain('HTTP 500');
    } finally {
      sat.consultDown = false;
    }
  });

  test('a request whose answer never came (crash, lost reply) is re-sent by the follow-up job; the late answer changes nothing', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated = {
      ...pac,
      cancel: async (...args: Parameters<typeof pac.cancel>) => (++calls === 1 ? gate.then(() => pac.cancel(...args)) : pac.cancel(...args)),
    };
    const { t, live, retry } = await setup(gated);
    const issued = await t.call('POST', '/cfdis', { token: live, body: invoice(400) });
    const uuid = issued.json.uuid as string;
    sat.states.set(uuid, [{ Estado: 'Cancelado', EsCancelable: 'Cancelable sin aceptación', EstatusCancelacion: 'Cancelado sin aceptación' }]);
    const pending = t.call('POST', `/cfdis/${uuid}/cancel`, { token: live, body: { motivo: '02' } });
    // The request reaches the PAC only after it committed cancelacion_pendiente: its call is the state to wait on.
    await until(() => calls === 1, 'the request is at the PAC');
    expect((await t.call('GET', `/cfdis/${issued.json.id}`, { token: live })).json.status).toBe('cancelacion_pendiente');
    await retry(); // the job finds no acuse and sends the stored request again
    expect(calls).toBe(2);
    expect((await t.call('GET', `/cfdis/${issued.json.id}`, { token: live })).json.status).toBe('cancelado');
    release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('cancelado');
    const events = await t.query<{ data: string }>(sql`select data from events where type = 'cfdi.cancelado'`);
    expect(events.filter((e) => JSON.parse(e.data).uuid === uuid).length).toBe(1);
    expect(await t.count(jobs, and(eq(jobs.type, 'cfdi.cancellation'), eq(jobs.status, 'queued')))).toBe(0);
  });
});

import { afterAll, describe, expect, test } from 'bun:test';
import { asc, eq, sql } from 'drizzle-orm';
import { retencionStampAttempts, retenciones } from '../../../src/db/schema/index.ts';
import { RetencionExamples, RetencionQueuedExample } from '../../../src/invoices/retenciones/examples.ts';
import { resumeRetencion, type RetencionDeps } from '../../../src/invoices/retenciones/issue.ts';
import type { Actor } from '../../../src/lib/backend.ts';
import { RetencionSchema } from '../../../src/invoices/retenciones/schemas.ts';
import { createTestApp, eventReceiver, issuer, READY } from '../../helpers.ts';
import { validateRetencionAgainstSatXsd } from '../../sat/verify.ts';
import { scriptedPac } from '../../scripted-pac.ts';

/**
 * Live mode (issue 41): POST /retenciones answers 202 en_cola, and a `retencion.stamp` job stamps the sealed XML
 * through the PAC failover router, as a queued CFDI's job does; what every route answers meanwhile and after.
 */
const receiver = eventReceiver();
afterAll(receiver.stop);

const WINDOW_MS = 60_000;

async function setup() {
  const finkok = scriptedPac('finkok');
  const sw = scriptedPac('sw');
  const t = await createTestApp({ livePacs: [finkok, sw], pacAmbiguousWindowMs: WINDOW_MS, wakeOnEnqueue: false, webhookAllowPrivate: true });
  const a = await issuer(t, { ...READY, keys: ['test', 'live'], csd: ['test', 'live'] });
  const attempts = async (id: string) =>
    (
      await t.db
        .select({ pac: retencionStampAttempts.pac, outcome: retencionStampAttempts.outcome })
        .from(retencionStampAttempts)
        .where(eq(retencionStampAttempts.retencionId, id))
        .orderBy(asc(retencionStampAttempts.id))
    ).map((x) => `${x.pac}:${x.outcome}`);
  const issue = (headers: Record<string, string> = {}) =>
    t.call('POST', '/retenciones', { token: a.live, body: structuredClone(RetencionExamples.retencion_arrendamiento.value), headers });
  const get = async (id: string) => (await t.call('GET', `/retenciones/${id}`, { token: a.live })).json;
  const events = async (type: string, id: string) =>
    (await t.query<{ data: string }>(sql`select data from events where type = ${type} and data like ${`%${id}%`}`)).map((e) => JSON.parse(e.data));
  return { t, a, finkok, sw, attempts, issue, get, events };
}

describe('POST /retenciones in live mode', () => {
  test('202 en_cola with its sealed XML kept; every route answers for a queued one; the job stamps it through the first PAC: vigente, its TFD, retencion.timbrada delivered', async () => {
    const { t, a, finkok, sw, attempts, issue, get, events } = await setup();
    const hook = await t.call('POST', '/webhooks', { token: a.live, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['retencion.timbrada'] } });
    expect(hook.status).toBe(201);
    const res = await issue();
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: 'en_cola', uuid: null, pac: null, fecha_timbrado: null, sello_sat: null, failure_reason: null });
    // The documented 202 example is a retención as the API answers it.
    expect(Object.keys(res.json).sort()).toEqual(Object.keys(RetencionQueuedExample).sort());
    expect(RetencionSchema.safeParse(RetencionQueuedExample).success).toBe(true);
    const id = res.json.id as string;
    expect([finkok.calls, sw.calls]).toEqual([0, 0]);
    expect(await t.query(sql`select action, status from audit_log where resource_id = ${id}`)).toEqual([{ action: 'issueRetencion', status: 202 }]);
    const [sealed] = await t.query<{ xml: Uint8Array }>(sql`select xml from retencion_documents where retencion_id = ${id}`);
    expect(Buffer.from(sealed!.xml).toString('utf8')).toContain(`FolioInt="${res.json.folio_int}"`);
    expect(Buffer.from(sealed!.xml).toString('utf8')).not.toContain('TimbreFiscalDigital');

    // Queued: readable and listed by its status; no fiscal XML or PDF yet (404, as a queued CFDI); not cancellable nor emailable (409).
    expect(await get(id)).toEqual(res.json);
    expect((await t.call('GET', '/retenciones?status=en_cola', { token: a.live })).json.data.map((r: { id: string }) => r.id)).toEqual([id]);
    const xml = await t.call('GET', `/retenciones/${id}/xml`, { token: a.live });
    expect(xml.status).toBe(404);
    expect(xml.json.error.message).toContain('queued for stamping');
    expect((await t.call('GET', `/retenciones/${id}/pdf`, { token: a.live })).status).toBe(404);
    const cancel = await t.call('POST', `/retenciones/${id}/cancel`, { token: a.live, body: { motivo: '02' } });
    expect(cancel.status).toBe(409);
    expect(cancel.json.error.details).toEqual([{ field: 'status', issue: 'is en_cola' }]);
    expect((await t.call('POST', `/retenciones/${id}/email`, { token: a.live, body: { to: ['karla@example.com'] } })).status).toBe(409);
    // Counted by status; its amounts are not withheld yet.
    const queuedStats = (await t.call('GET', '/stats', { token: a.live })).json.retenciones;
    expect(queuedStats).toMatchObject({ total: 1, por_status: { en_cola: 1 }, monto_tot_ret: 0 });
    // Another tenant's live key does not see it.
    const other = await issuer(t, { ...READY, keys: ['live'], csd: [] });
    expect((await t.call('GET', `/retenciones/${id}`, { token: other.live })).status).toBe(404);

    await t.app.worker.drain();
    expect([finkok.calls, sw.calls]).toEqual([1, 0]);
    const stamped = await get(id);
    expect(stamped).toMatchObject({ status: 'vigente', pac: 'finkok', failure_reason: null, certificado_sat: '99001000000000000001' });
    expect(stamped.uuid).toMatch(/^[0-9A-F-]{36}$/);
    expect(stamped.fecha_timbrado).toBeString();
    expect(stamped.sello_sat).toBeString();
    expect(await attempts(id)).toEqual(['finkok:sent', 'finkok:stamped']);
    const doc = (await t.call('GET', `/retenciones/${id}/xml`, { token: a.live })).text;
    expect(doc).toContain(`UUID="${stamped.uuid}"`);
    expect(await validateRetencionAgainstSatXsd(doc)).toEqual({ valid: true, errors: [] });
    expect((await t.call('GET', `/retenciones/${id}/pdf`, { token: a.live })).status).toBe(200);
    expect(await events('retencion.timbrada', id)).toEqual([
      { retencion_id: id, uuid: stamped.uuid, folio_int: stamped.folio_int, cve_retenc: '05', receptor_rfc: 'FUNK671228PH6' },
    ]);
    await t.app.worker.drain();
    expect(receiver.received.filter((e) => e.event === 'retencion.timbrada' && e.data.retencion_id === id)).toHaveLength(1);
    expect((await t.call('GET', '/stats', { token: a.live })).json.retenciones).toMatchObject({ por_status: { vigente: 1 }, monto_tot_ret: 4133.34 });
    // Stamped once: the job is done, another drain sends nothing.
    await t.app.worker.drain();
    expect(finkok.calls).toBe(1);
  });

  test('the first PAC fails provider-side: the second stamps it in the same attempt; its cancellation goes to that PAC', async () => {
    const { t, a, finkok, sw, attempts, issue, get, events } = await setup();
    finkok.script.push('provider');
    const { id } = (await issue()).json;
    await t.app.worker.drain();
    expect([finkok.calls, sw.calls]).toEqual([1, 1]);
    expect(await attempts(id)).toEqual(['finkok:sent', 'finkok:provider', 'sw:sent', 'sw:stamped']);
    const stamped = await get(id);
    expect(stamped).toMatchObject({ status: 'vigente', pac: 'sw' });

    const cancel = await t.call('POST', `/retenciones/${id}/cancel`, { token: a.live, body: { motivo: '02' } });
    expect(cancel.status).toBe(200);
    expect(cancel.json.status).toBe('cancelado');
    expect([finkok.cancelledRetenciones.length, sw.cancelledRetenciones.length]).toEqual([0, 1]);
    expect(sw.cancelledRetenciones[0]).toMatchObject({ uuid: stamped.uuid, motivo: '02', rfcEmisor: 'EKU9003173C9' });
    expect(await events('retencion.cancelada', id)).toHaveLength(1);
  });

  test('every PAC unavailable: still en_cola, retried with backoff, stamped when one answers', async () => {
    const { t, finkok, sw, issue, get } = await setup();
    finkok.script.push('provider');
    sw.script.push('provider');
    const { id } = (await issue()).json;
    await t.app.worker.drain();
    expect(await get(id)).toMatchObject({ status: 'en_cola', uuid: null, failure_reason: null });
    t.clock.advance(60_000);
    await t.app.worker.drain();
    expect((await get(id)).status).toBe('vigente');
    expect([finkok.calls, sw.calls]).toEqual([2, 1]);
  });

  test('an ambiguous answer keeps it with the first PAC for the window, then the second stamps it (the PAC left behind is asked: duplicate-stamps.test.ts)', async () => {
    const { t, finkok, sw, attempts, issue, get } = await setup();
    finkok.script.push('ambiguous', 'ambiguous');
    const { id } = (await issue()).json;
    await t.app.worker.drain();
    t.clock.advance(15_000);
    await t.app.worker.drain();
    expect([finkok.calls, sw.calls]).toEqual([2, 0]);
    expect((await get(id)).status).toBe('en_cola');
    t.clock.advance(WINDOW_MS);
    await t.app.worker.drain();
    expect(await get(id)).toMatchObject({ status: 'vigente', pac: 'sw' });
    expect((await attempts(id)).slice(-2)).toEqual(['sw:sent', 'sw:stamped']);
  });

  test('a definitive refusal: fallido with the reason on GET, retencion.fallida, the second PAC never asked; not cancellable nor emailable', async () => {
    const { t, a, finkok, sw, issue, get, events } = await setup();
    finkok.script.push('definitive');
    const res = await issue();
    expect(res.status).toBe(202);
    const id = res.json.id as string;
    await t.app.worker.drain();
    expect([finkok.calls, sw.calls]).toEqual([1, 0]);
    expect(await get(id)).toMatchObject({ status: 'fallido', uuid: null, failure_reason: '302: Sello mal formado o inválido' });
    expect(await events('retencion.fallida', id)).toEqual([
      { retencion_id: id, folio_int: res.json.folio_int, cve_retenc: '05', receptor_rfc: 'FUNK671228PH6', reason: '302: Sello mal formado o inválido' },
    ]);
    expect(await events('retencion.timbrada', id)).toEqual([]);
    expect((await t.call('GET', '/retenciones?status=fallido', { token: a.live })).json.data.map((r: { id: string }) => r.id)).toEqual([id]);
    expect((await t.call('POST', `/retenciones/${id}/cancel`, { token: a.live, body: { motivo: '02' } })).status).toBe(409);
    expect((await t.call('POST', `/retenciones/${id}/email`, { token: a.live, body: { to: ['karla@example.com'] } })).status).toBe(409);
    expect(await t.count(retenciones, eq(retenciones.tenantId, a.tenant.id))).toBe(1);
    // A retry whose first request died before answering answers what it would now: the PAC's refusal (422), as for a CFDI.
    const resumed = await resumeRetencion({ db: t.db } as RetencionDeps, { tenantId: a.tenant.id, environment: 'live' } as Actor, id).catch((e) => e);
    expect(resumed).toMatchObject({ kind: 'rejected', details: [{ field: 'pac', issue: '302: Sello mal formado o inválido' }] });
  });

  test('Idempotency-Key: a retry answers the same 202 (replayed, also once stamped); one row, one job, one stamp', async () => {
    const { t, a, finkok, issue, get } = await setup();
    const first = await issue({ 'idempotency-key': 'ret-live-1' });
    expect(first.status).toBe(202);
    const queued = await issue({ 'idempotency-key': 'ret-live-1' });
    expect(queued.status).toBe(202);
    expect(queued.json).toEqual(first.json);
    await t.app.worker.drain();
    const replayed = await issue({ 'idempotency-key': 'ret-live-1' });
    expect(replayed.status).toBe(202);
    expect(replayed.json).toEqual(first.json);
    expect(await get(first.json.id)).toMatchObject({ status: 'vigente', pac: 'finkok' });
    expect(finkok.calls).toBe(1);
    expect(await t.count(retenciones, eq(retenciones.tenantId, a.tenant.id))).toBe(1);
  });

  test('/validate answers live requests as test ones (no refusal); a PAC that does not cancel Retenciones: 422 retenciones_cancel_unsupported, still vigente', async () => {
    const { t, a, finkok, issue, get } = await setup();
    const verdict = await t.call('POST', '/retenciones/validate', { token: a.live, body: RetencionExamples.retencion_arrendamiento.value });
    expect(verdict.json).toEqual({ valid: true, errors: [] });
    const { id } = (await issue()).json;
    await t.app.worker.drain();
    finkok.cancelRetencion = undefined;
    const refused = await t.call('POST', `/retenciones/${id}/cancel`, { token: a.live, body: { motivo: '02' } });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('retenciones_cancel_unsupported');
    expect(refused.json.error.details[0].field).toBe('pac');
    expect((await get(id)).status).toBe('vigente');
  });
});

describe('POST /retenciones/batch in live mode', () => {
  test('each item queued, then stamped by its job; the batch retried answers every item duplicate and queues nothing new', async () => {
    const { t, a, finkok } = await setup();
    const v = RetencionExamples.retencion_arrendamiento.value;
    const items = [
      { ...structuredClone(v), idempotency_key: 'live-batch-0' },
      { ...structuredClone(v), idempotency_key: 'live-batch-1' },
    ];
    const res = await t.call('POST', '/retenciones/batch', { token: a.live, body: { items } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ created: 0, queued: 2, duplicate: 0, invalid: 0 });
    expect(res.json.results.map((r: { status: string; uuid: string | null }) => [r.status, r.uuid])).toEqual([
      ['queued', null],
      ['queued', null],
    ]);
    await t.app.worker.drain();
    expect(finkok.calls).toBe(2);
    const retried = await t.call('POST', '/retenciones/batch', { token: a.live, body: { items } });
    expect(retried.json).toMatchObject({ created: 0, queued: 0, duplicate: 2, invalid: 0 });
    for (const [i, r] of retried.json.results.entries()) {
      expect(r.id).toBe(res.json.results[i].id);
      expect(r.uuid).toMatch(/^[0-9A-F-]{36}$/);
    }
    await t.app.worker.drain();
    expect(finkok.calls).toBe(2);
    expect(await t.count(retenciones, eq(retenciones.tenantId, a.tenant.id))).toBe(2);
  });
});

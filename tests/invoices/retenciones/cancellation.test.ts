import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { verifyEnveloped } from '../../../src/cfdi/cancellation.ts';
import { cancelRetencion } from '../../../src/invoices/retenciones/cancellation.ts';
import { RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { ServiceError } from '../../../src/lib/service-error.ts';
import { createTestApp, eventReceiver, expectStatus, issuer, READY, TEST_MASTER_KEY, testSandboxSat } from '../../helpers.ts';

/**
 * Issue 41, third step: POST /retenciones/{id}/cancel (motivos, the signed cancelacionretencion request, 409 when not
 * vigente, Idempotency-Key, `retencion.cancelada` delivered), GET /retenciones/{id}/sat-status before and after,
 * GET /retenciones/{id}/pdf (the UUID in its text, the cancelled mark); isolation and roles.
 */
const t = await createTestApp({ wakeOnEnqueue: false, webhookAllowPrivate: true, webhookRetrySchedule: [0, 1] });
const receiver = eventReceiver();
afterAll(receiver.stop);

let a: Awaited<ReturnType<typeof issuer>>;
let b: Awaited<ReturnType<typeof issuer>>;
beforeAll(async () => {
  a = await issuer(t, { ...READY, keys: ['test', 'live'] });
  b = await issuer(t, READY);
  const hook = await t.call('POST', '/webhooks', { token: a.key, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['retencion.cancelada'] } });
  expect(hook.status).toBe(201);
});

const example = () => structuredClone(RetencionExamples.retencion_arrendamiento.value);
async function issue(body: Record<string, unknown> = example(), token = a.key) {
  const res = await t.call('POST', '/retenciones', { token, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.json as { id: string; uuid: string; folio_int: string };
}
const cancel = (ref: string, body: unknown, o: { token?: string; idem?: string } = {}) =>
  t.call('POST', `/retenciones/${ref}/cancel`, { token: o.token ?? a.key, body, headers: o.idem ? { 'idempotency-key': o.idem } : {} });
const satStatus = (ref: string, token = a.key) => t.call('GET', `/retenciones/${ref}/sat-status`, { token });

async function pdfText(bytes: Uint8Array): Promise<string> {
  const task = getDocument({ data: bytes.slice(), disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  const doc = await task.promise;
  const parts: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    parts.push(((await page.getTextContent()).items as { str?: string }[]).map((i) => i.str ?? '').join(' '));
  }
  await task.destroy();
  return parts.join(' ');
}

describe('POST /retenciones/{id}/cancel', () => {
  test('motivo 02: cancelado at once, its cancelacion, SAT status before and after, retencion.cancelada delivered', async () => {
    const r = await issue();
    const before = expectStatus(await t.api('GET', `/retenciones/${r.id}/sat-status`, { token: a.key }), 200);
    expect(before.json).toMatchObject({ uuid: r.uuid, estado: 'Vigente', estatus_cancelacion: null, fecha_cancelacion: null, fuente: 'sandbox' });

    const res = expectStatus(await t.api('POST', `/retenciones/${r.id}/cancel`, { token: a.key, body: { motivo: '02' } }), 200);
    expect(res.json).toMatchObject({ id: r.id, uuid: r.uuid, status: 'cancelado', cancelacion: { motivo: '02', folio_sustitucion: null } });
    expect((await t.call('GET', `/retenciones/${r.id}`, { token: a.key })).json.status).toBe('cancelado');
    expect((await t.call('GET', '/retenciones?status=cancelado&limit=100', { token: a.key })).json.data.map((x: any) => x.id)).toContain(r.id);

    const after = (await satStatus(r.uuid.toLowerCase())).json;
    expect(after).toMatchObject({ uuid: r.uuid, estado: 'Cancelado', estatus_cancelacion: 'Cancelado sin aceptación' });
    expect(after.fecha_cancelacion).toBeString();

    // The simulated SAT received the request signed with the tenant's CSD, in cancelacionretencion's namespace.
    const [held] = await t.query<{ acuse_xml: Uint8Array }>(sql`select acuse_xml from sandbox_cancellations where uuid = ${r.uuid}`);
    expect(Buffer.from(held!.acuse_xml).toString('utf8')).toContain('xmlns="http://cancelaretencion.sat.gob.mx"');
    expect(verifyEnveloped(Buffer.from(held!.acuse_xml).toString('utf8'), testSandboxSat().certificateDer)).toBe(true);

    const events = await t.query<{ type: string; data: string }>(
      sql`select type, data from events where tenant_id = ${a.tenant.id} and type = 'retencion.cancelada' and data like ${`%${r.id}%`}`,
    );
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data)).toEqual({ retencion_id: r.id, uuid: r.uuid, folio_int: r.folio_int, motivo: '02', folio_sustitucion: null });
    await t.app.worker.drain();
    const delivered = receiver.received.filter((e) => e.event === 'retencion.cancelada' && e.data.uuid === r.uuid);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.data).toMatchObject({ retencion_id: r.id, motivo: '02' });
  });

  test('a second cancel is 409; the status is unchanged and no second event', async () => {
    const r = await issue();
    expect((await cancel(r.id, { motivo: '03' })).status).toBe(200);
    const again = await cancel(r.id, { motivo: '03' });
    expect(again.status).toBe(409);
    expect(again.json.error.details).toEqual([{ field: 'status', issue: 'is cancelado' }]);
    const [{ n }] = (await t.query<{ n: number }>(sql`select count(*) as n from events where type = 'retencion.cancelada' and data like ${`%${r.id}%`}`)) as [
      { n: number },
    ];
    expect(Number(n)).toBe(1);
  });

  test('motivo 01 needs folio_sustitucion naming a vigente replacement related with 04; other motivos refuse it (400 naming the field)', async () => {
    const r = await issue();
    const missing = await cancel(r.id, { motivo: '01' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details[0].field).toBe('folio_sustitucion');
    const extra = await cancel(r.id, { motivo: '02', folio_sustitucion: r.uuid });
    expect(extra.status).toBe(400);
    expect(extra.json.error.details[0].field).toBe('folio_sustitucion');
    const badMotivo = await cancel(r.id, { motivo: '05' });
    expect(badMotivo.status).toBe(400);
    expect(badMotivo.json.error.details[0].field).toBe('motivo');
    const unrelated = await issue();
    const notRelated = await cancel(r.id, { motivo: '01', folio_sustitucion: unrelated.uuid });
    expect(notRelated.status).toBe(400);
    expect(notRelated.json.error.details[0]).toMatchObject({ field: 'folio_sustitucion' });
    expect(notRelated.json.error.details[0].issue).toContain('TipoRelacion 04');
    const itself = await cancel(r.id, { motivo: '01', folio_sustitucion: r.uuid });
    expect(itself.status).toBe(400);
    expect((await t.call('GET', `/retenciones/${r.id}`, { token: a.key })).json.status).toBe('vigente');

    const replacement = await issue({ ...example(), cfdi_reten_relacionados: { tipo_relacion: '04', uuid: r.uuid } });
    const res = await cancel(r.id, { motivo: '01', folio_sustitucion: replacement.uuid.toLowerCase() });
    expect(res.status).toBe(200);
    expect(res.json.cancelacion).toMatchObject({ motivo: '01', folio_sustitucion: replacement.uuid });
  });

  test('Idempotency-Key: a retry answers the same cancellation, no second event', async () => {
    const r = await issue();
    const first = await cancel(r.id, { motivo: '02' }, { idem: `ret-cancel-${r.id}` });
    expect(first.status).toBe(200);
    const retry = await cancel(r.id, { motivo: '02' }, { idem: `ret-cancel-${r.id}` });
    expect(retry.status).toBe(200);
    expect(retry.json).toEqual(first.json);
    const other = await cancel(r.id, { motivo: '03' }, { idem: `ret-cancel-${r.id}` });
    expect(other.status).toBe(409);
  });

  test("VIEWER 403; another tenant's retención 404 by id and by UUID, and from the live environment", async () => {
    const r = await issue();
    const viewer = await a.userWithRole('VIEWER');
    expect((await cancel(r.id, { motivo: '02' }, { token: viewer.token })).status).toBe(403);
    for (const ref of [r.id, r.uuid, r.uuid.toLowerCase()]) {
      expect((await cancel(ref, { motivo: '02' }, { token: b.key })).status).toBe(404);
      expect((await satStatus(ref, b.key)).status).toBe(404);
      expect((await t.call('GET', `/retenciones/${ref}/pdf`, { token: b.key })).status).toBe(404);
    }
    // The retención is test mode's: its ids are 404 in the live environment.
    expect((await cancel(r.id, { motivo: '02' }, { token: a.live })).status).toBe(404);
    expect((await t.call('GET', `/retenciones/${r.id}`, { token: a.key })).json.status).toBe('vigente');
    expect((await satStatus('ret_doesnotexist')).status).toBe(404);
  });
});

describe('POST /retenciones/{id}/cancel without a PAC for Retenciones', () => {
  test('a PAC that does not cancel Retenciones (live): 422 retenciones_cancel_unsupported', async () => {
    const r = await issue();
    const actor = { tenantId: a.tenant.id, environment: 'test' } as any;
    const deps = { db: t.db, now: () => new Date(), pacFor: () => undefined, masterKey: TEST_MASTER_KEY };
    const refused: any = await cancelRetencion(deps, actor, r.id, { motivo: '02' }).catch((e) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ kind: 'rejected', code: 'retenciones_cancel_unsupported' });
    expect(refused.details[0].field).toBe('pac');
    expect((await t.call('GET', `/retenciones/${r.id}`, { token: a.key })).json.status).toBe('vigente');
  });
});

describe('GET /retenciones/{id}/pdf', () => {
  test('the printed representation: %PDF, the UUID and FolioInt in its text; the cancelled mark once cancelled', async () => {
    const r = await issue();
    const res = await t.app.request(`/api/v1/retenciones/${r.uuid.toLowerCase()}/pdf`, { headers: { authorization: `Bearer ${a.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${r.uuid}.pdf`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
    const text = await pdfText(bytes);
    expect(text).toContain(r.uuid);
    expect(text).toContain('SIN VALIDEZ FISCAL');
    expect(text).not.toContain('RETENCIÓN CANCELADA');

    expect((await cancel(r.id, { motivo: '02' })).status).toBe(200);
    const cancelled = await t.app.request(`/api/v1/retenciones/${r.id}/pdf`, { headers: { authorization: `Bearer ${a.key}` } });
    expect(cancelled.status).toBe(200);
    expect(await pdfText(new Uint8Array(await cancelled.arrayBuffer()))).toContain('RETENCIÓN CANCELADA');
  });
});

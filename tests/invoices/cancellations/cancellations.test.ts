import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cancellationFactsOf, verifyEnveloped } from '../../../src/cfdi/cancellation.ts';
import { CANCELLED_MARK } from '../../../src/cfdi/pdf.ts';
import { child, parseXml } from '../../../src/cfdi/xml.ts';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { createTestApp, csdFiles, eventReceiver, ICV, issuer, READY, TEST_ENGINE, testSandboxSat, until } from '../../helpers.ts';

// A sandbox invoice's moves before its cancellation: none where it is issued vigente in one transaction (SQLite); where
// its folio's transaction commits before the seal (PostgreSQL), it was en_cola until its stamp was recorded.
const ISSUED = TEST_ENGINE === 'postgres' ? ['en_cola>vigente'] : [];
import { eq, sql } from 'drizzle-orm';
import { cfdiCancellations } from '../../../src/db/schema/index.ts';

/**
 * Acceptance (issue 8): each motivo's happy path and each rule violation; the three sandbox scenarios walk
 * vigente → cancelacion_pendiente → cancelado / vigente with `cfdi.cancelado` reaching a real webhook receiver
 * exactly when the CFDI is cancelado; the signed request verifies with xml-crypto and xmlsec1; Idempotency-Key;
 * tenant isolation; queued CFDIs are withdrawn, not cancelled.
 */
const POLL_SECONDS = 60;
const t = await createTestApp({ wakeOnEnqueue: false, cancellationPollSeconds: POLL_SECONDS, webhookAllowPrivate: true, webhookRetrySchedule: [0, 1] });
const CSD = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');

const receiver = eventReceiver();
const { received } = receiver;
afterAll(receiver.stop);

let key = '';
let other = '';
let live = '';
beforeAll(async () => {
  ({ key, live } = await issuer(t, { ...READY, keys: ['test', 'live'] }));
  expect((await t.call('POST', '/webhooks', { token: key, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['cfdi.cancelado'] } })).status).toBe(
    201,
  );
  // Another tenant with the same kind of set-up.
  other = (await issuer(t, READY)).key;
});

const invoice = (valor: number, extra: Record<string, unknown> = {}) => ({
  tipo: 'I',
  forma_pago: '03',
  receptor: ICV,
  ...extra,
  conceptos: [
    {
      clave_prod_serv: '84111506',
      clave_unidad: 'E48',
      descripcion: 'Servicio',
      cantidad: 1,
      valor_unitario: valor,
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
});

async function issue(body: Record<string, unknown> = invoice(5000), token = key) {
  const res = await t.call('POST', '/cfdis', { token, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.json as { id: string; uuid: string };
}

const cancel = (ref: string, body: unknown, o: { token?: string; scenario?: string; idem?: string } = {}) =>
  t.call('POST', `/cfdis/${ref}/cancel`, {
    token: o.token ?? key,
    body,
    headers: { ...(o.scenario ? { 'x-sandbox-scenario': o.scenario } : {}), ...(o.idem ? { 'idempotency-key': o.idem } : {}) },
  });

async function poll() {
  t.clock.advance(POLL_SECONDS * 1000);
  await t.app.worker.drain();
  await t.app.worker.drain(); // the webhook deliveries the poll queued
}
const cancelados = (uuid: string) => received.filter((e) => e.event === 'cfdi.cancelado' && e.data.uuid === uuid);
const statusOf = async (id: string) => (await t.call('GET', `/cfdis/${id}`, { token: key })).json.status;
const listed = async (status: string) => (await t.call('GET', `/cfdis?status=${status}&limit=100`, { token: key })).json.data.map((c: any) => c.id);

describe('cancellation: motivos and their rules', () => {
  test('motivo 02 cancels at once: 200, cancelado, acuse, history, cfdi.cancelado, list filter', async () => {
    const c = await issue();
    const res = await cancel(c.id, { motivo: '02' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      cfdi_id: c.id,
      uuid: c.uuid,
      status: 'cancelado',
      cfdi_status: 'cancelado',
      motivo: '02',
      folio_sustitucion: null,
      estado_sat: 'Cancelado',
    });
    expect(res.json.estatus_cancelacion).toBe('Cancelado sin aceptación'); // just stamped: cancelled up to the next business day
    expect(res.json.requiere_aceptacion).toBe(false);
    expect(res.json.acuse_xml_url).toBe(`/api/v1/cfdis/${c.id}/cancellation/acuse.xml`);
    expect(res.json.resolved_at).not.toBeNull();
    expect(res.json.historial.map((h: any) => `${h.from}>${h.to}`)).toEqual([...ISSUED, 'vigente>cancelacion_pendiente', 'cancelacion_pendiente>cancelado']);
    expect(await statusOf(c.id)).toBe('cancelado');
    expect(await listed('cancelado')).toContain(c.id);
    expect(await listed('vigente')).not.toContain(c.id);
    await t.app.worker.drain();
    expect(cancelados(c.uuid)).toHaveLength(1);
    expect(cancelados(c.uuid)[0]!.data).toEqual({
      cfdi_id: c.id,
      uuid: c.uuid,
      motivo: '02',
      estado: 'Cancelado',
      estatus_cancelacion: 'Cancelado sin aceptación',
      external_id: null,
      metadata: {},
    });
    // Already cancelled: 409, by id or by UUID (lower case too).
    const again = await cancel(c.uuid.toLowerCase(), { motivo: '02' });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain('already cancelled');
    // The PDF of a cancelled CFDI says so on every page; the XML stays as stamped.
    const pdfText = async (ref: string) => {
      const bytes = new Uint8Array(await (await t.app.request(`/api/v1/cfdis/${ref}/pdf`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer());
      const task = getDocument({ data: bytes, disableFontFace: true, useSystemFonts: false, verbosity: 0 });
      const doc = await task.promise;
      const items = ((await (await doc.getPage(1)).getTextContent()).items as { str?: string }[]).map((i) => i.str ?? '');
      await task.destroy();
      return items.join(' ');
    };
    expect(await pdfText(c.uuid)).toContain(CANCELLED_MARK);
    expect(await pdfText((await issue()).uuid)).not.toContain(CANCELLED_MARK);
    expect((await t.call('GET', `/cfdis/${c.uuid}/sat-status`, { token: key })).json).toMatchObject({
      Estado: 'Cancelado',
      EstatusCancelacion: 'Cancelado sin aceptación',
      CodigoEstatus: expect.stringMatching(/^S - /),
    });
  });

  test('motivos 03 and 04 (by UUID)', async () => {
    for (const motivo of ['03', '04']) {
      const c = await issue();
      const res = await cancel(c.uuid, { motivo });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ status: 'cancelado', motivo });
      const request = await (await t.app.request(`/api/v1/cfdis/${c.id}/cancellation/request.xml`, { headers: { authorization: `Bearer ${key}` } })).text();
      const folio = child(child(parseXml(request), 'Folios')!, 'Folio')!;
      expect(folio.attrs).toEqual({ UUID: c.uuid, Motivo: motivo });
    }
  });

  test('motivo 01 with the replacement that relates to it with TipoRelacion 04', async () => {
    const original = await issue();
    const replacement = await issue(invoice(5000, { cfdi_relacionados: [{ tipo_relacion: '04', uuids: [original.uuid.toLowerCase()] }] }));
    const res = await cancel(original.id, { motivo: '01', folio_sustitucion: replacement.uuid.toLowerCase() });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'cancelado', motivo: '01', folio_sustitucion: replacement.uuid });
    const request = await (
      await t.app.request(`/api/v1/cfdis/${original.id}/cancellation/request.xml`, { headers: { authorization: `Bearer ${key}` } })
    ).text();
    expect(child(child(parseXml(request), 'Folios')!, 'Folio')!.attrs).toEqual({ UUID: original.uuid, Motivo: '01', FolioSustitucion: replacement.uuid });
    expect(await statusOf(replacement.id)).toBe('vigente');
  });

  test('each rule violation names the field', async () => {
    const c = await issue();
    const unrelated = await issue();
    const cancelled = await issue(invoice(5000, { cfdi_relacionados: [{ tipo_relacion: '04', uuids: [c.uuid] }] }));
    expect((await cancel(cancelled.id, { motivo: '02' })).status).toBe(200);
    const foreign = await issue(invoice(5000, { cfdi_relacionados: [{ tipo_relacion: '04', uuids: [c.uuid] }] }), other);
    const cases: [unknown, string, RegExp][] = [
      [{ motivo: '01' }, 'folio_sustitucion', /required with motivo 01/],
      [{ motivo: '02', folio_sustitucion: unrelated.uuid }, 'folio_sustitucion', /must be absent with motivo 02/],
      [{ motivo: '03', folio_sustitucion: unrelated.uuid }, 'folio_sustitucion', /must be absent/],
      [{ motivo: '01', folio_sustitucion: foreign.uuid }, 'folio_sustitucion', /no CFDI with UUID .* in this tenant/],
      [{ motivo: '01', folio_sustitucion: cancelled.uuid }, 'folio_sustitucion', /is cancelado; it must be vigente/],
      [{ motivo: '01', folio_sustitucion: unrelated.uuid }, 'folio_sustitucion', /does not relate to .* with TipoRelacion 04/],
      [{ motivo: '01', folio_sustitucion: c.uuid }, 'folio_sustitucion', /not of the CFDI being cancelled/],
      [{ motivo: '05' }, 'motivo', /01, 02, 03, 04/],
      [{ motivo: 2 }, 'motivo', /01, 02, 03, 04/],
      [{}, 'motivo', /./],
      [{ motivo: '01', folio_sustitucion: 'not-a-uuid' }, 'folio_sustitucion', /must be a UUID/],
      [{ motivo: '02', extra: true }, 'extra', /./],
    ];
    for (const [body, field, issue] of cases) {
      const res = await cancel(c.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const detail = res.json.error.details.find((d: any) => d.field === field);
      expect(detail, `${JSON.stringify(body)} → ${res.text}`).toBeDefined();
      expect(detail.issue).toMatch(issue);
    }
    expect(await statusOf(c.id)).toBe('vigente');
    expect((await t.call('GET', `/cfdis/${c.id}/cancellation`, { token: key })).status).toBe(404);
    expect((await cancel(c.id, { motivo: '02' }, { scenario: 'cancel_later' })).status).toBe(400);
  });

  test('a CFDI another vigente CFDI relates to is No cancelable (409) until that one is cancelled', async () => {
    const advance = await issue();
    const final = await issue(invoice(5000, { cfdi_relacionados: [{ tipo_relacion: '07', uuids: [advance.uuid] }] }));
    expect((await t.call('GET', `/cfdis/${advance.id}/sat-status`, { token: key })).json.EsCancelable).toBe('No cancelable');
    const refused = await cancel(advance.id, { motivo: '02' });
    expect(refused.status).toBe(409);
    expect(refused.json.error.details[0]).toEqual({ field: 'cfdi_relacionados', issue: `${final.uuid} relates to it with TipoRelacion 07` });
    expect((await cancel(final.id, { motivo: '02' })).status).toBe(200);
    expect((await cancel(advance.id, { motivo: '02' })).status).toBe(200);
  });

  test('past the deadline (31 March of the next year for a persona moral) → 409', async () => {
    const c = await issue();
    const facts = cancellationFactsOf(await (await t.app.request(`/api/v1/cfdis/${c.uuid}/xml`, { headers: { authorization: `Bearer ${key}` } })).text());
    const year = Number(facts.fecha.slice(0, 4));
    const saved = t.clock.now;
    t.clock.now = new Date(`${year + 1}-04-01T18:00:00Z`);
    try {
      const res = await cancel(c.id, { motivo: '02' });
      expect(res.status).toBe(409);
      expect(res.json.error.details[0]).toMatchObject({ field: 'fecha', issue: expect.stringContaining(`cancellable until ${year + 1}-03-31`) });
    } finally {
      t.clock.now = saved;
    }
  });
});

describe('cancellation: sandbox scenarios and the status flow', () => {
  test('cancel_pending_accept: 202 pending, accepted at the next poll; cfdi.cancelado only then', async () => {
    const c = await issue();
    const res = await cancel(c.id, { motivo: '02' }, { scenario: 'cancel_pending_accept' });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({
      status: 'en_proceso',
      cfdi_status: 'cancelacion_pendiente',
      estatus_cancelacion: 'En proceso',
      estado_sat: 'Vigente',
      resolved_at: null,
    });
    expect(await listed('cancelacion_pendiente')).toContain(c.id);
    expect((await t.call('GET', `/cfdis/${c.id}/sat-status`, { token: key })).json).toMatchObject({
      Estado: 'Vigente',
      EsCancelable: 'Cancelable con aceptación',
      EstatusCancelacion: 'En proceso',
    });
    await t.app.worker.drain();
    expect(cancelados(c.uuid)).toHaveLength(0);
    expect((await cancel(c.id, { motivo: '02' })).status).toBe(409); // one at a time

    await poll();
    const after = (await t.call('GET', `/cfdis/${c.id}/cancellation`, { token: key })).json;
    expect(after).toMatchObject({ status: 'cancelado', cfdi_status: 'cancelado', estatus_cancelacion: 'Cancelado con aceptación' });
    expect(after.historial.map((h: any) => h.to)).toEqual([...ISSUED.map((m) => m.split('>')[1]), 'cancelacion_pendiente', 'cancelado']);
    expect(cancelados(c.uuid)).toHaveLength(1);
    expect(cancelados(c.uuid)[0]!.data).toMatchObject({ estado: 'Cancelado', estatus_cancelacion: 'Cancelado con aceptación' });
    expect(await listed('cancelado')).toContain(c.id);
    await poll();
    expect(cancelados(c.uuid)).toHaveLength(1); // nothing more after it ended
  });

  test('cancel_rejected: back to vigente with the reason; no cfdi.cancelado; a new request may follow', async () => {
    const c = await issue();
    expect((await cancel(c.id, { motivo: '03' }, { scenario: 'cancel_rejected' })).status).toBe(202);
    await poll();
    const after = (await t.call('GET', `/cfdis/${c.id}/cancellation`, { token: key })).json;
    expect(after).toMatchObject({
      status: 'rechazado',
      cfdi_status: 'vigente',
      estatus_cancelacion: 'Solicitud rechazada',
      motivo_rechazo: expect.stringContaining('rejected'),
    });
    expect(after.historial.map((h: any) => `${h.from}>${h.to}`)).toEqual([...ISSUED, 'vigente>cancelacion_pendiente', 'cancelacion_pendiente>vigente']);
    expect(after.historial.at(-1).reason).toContain('Solicitud rechazada');
    expect(await statusOf(c.id)).toBe('vigente');
    expect(cancelados(c.uuid)).toHaveLength(0);
    const second = await cancel(c.id, { motivo: '03' });
    expect(second.status).toBe(200);
    expect(second.json.historial).toHaveLength(ISSUED.length + 4);
    await t.app.worker.drain();
    expect(cancelados(c.uuid)).toHaveLength(1);
  });

  test('cancel_expired: still pending at the first poll, cancelled as Plazo vencido when the window closes', async () => {
    const c = await issue();
    expect((await cancel(c.id, { motivo: '02' }, { scenario: 'cancel_expired' })).status).toBe(202);
    await poll();
    expect(await statusOf(c.id)).toBe('cancelacion_pendiente');
    expect(cancelados(c.uuid)).toHaveLength(0);
    await poll();
    expect(await statusOf(c.id)).toBe('cancelado');
    expect((await t.call('GET', `/cfdis/${c.id}/cancellation`, { token: key })).json.estatus_cancelacion).toBe('Plazo vencido');
    expect(cancelados(c.uuid)).toHaveLength(1);
    expect(cancelados(c.uuid)[0]!.data.estatus_cancelacion).toBe('Plazo vencido');
  });

  test('a week after stamping, a $5,800 invoice to a named receiver needs acceptance; a $116 one does not', async () => {
    const big = await issue();
    const small = await issue(invoice(100));
    t.clock.advance(8 * 86_400_000);
    const a = await cancel(big.id, { motivo: '02' });
    const b = await cancel(small.id, { motivo: '02' });
    expect([a.json.requiere_aceptacion, a.json.estatus_cancelacion]).toEqual([true, 'Cancelado con aceptación']);
    expect([b.json.requiere_aceptacion, b.json.estatus_cancelacion]).toEqual([false, 'Cancelado sin aceptación']);
  });
});

describe('cancellation: the signed request and the acuse', () => {
  test('the request verifies with xml-crypto and with xmlsec1 using the CSD certificate; a changed one does not', async () => {
    const c = await issue();
    expect((await cancel(c.id, { motivo: '02' })).status).toBe(200);
    const get = (path: string) => t.app.request(`/api/v1/cfdis/${c.id}/cancellation/${path}`, { headers: { authorization: `Bearer ${key}` } });
    const res = await get('request.xml');
    expect(res.headers.get('content-type')).toBe('application/xml');
    const request = await res.text();
    const root = parseXml(request);
    expect(root.name).toBe('Cancelacion');
    expect(root.attrs).toMatchObject({
      xmlns: 'http://cancelacfd.sat.gob.mx',
      RfcEmisor: 'EKU9003173C9',
      Fecha: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
    });
    expect(request).toContain('<SignatureMethod Algorithm="http://www.w3.org/2000/09/xmldsig#rsa-sha1"/>');
    expect(request).toContain('<Reference URI="">');
    expect(verifyEnveloped(request, CSD.cer)).toBe(true);
    const tampered = request.replace('Motivo="02"', 'Motivo="03"');
    expect(verifyEnveloped(tampered, CSD.cer)).toBe(false);
    expect(verifyEnveloped(request, testSandboxSat().certificateDer)).toBe(false); // another key

    const acuse = await (await get('acuse.xml')).text();
    expect(acuse).toContain(`<UUID>${c.uuid}</UUID><EstatusUUID>201</EstatusUUID>`);
    expect(verifyEnveloped(acuse, testSandboxSat().certificateDer)).toBe(true);

    if (Bun.which('xmlsec1') === null) {
      console.warn('xmlsec1 not installed (Debian: apt-get install xmlsec1): skipping the xmlsec1 check');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'xmlsec-'));
    try {
      const pem = `-----BEGIN CERTIFICATE-----\n${CSD.cer.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;
      writeFileSync(join(dir, 'csd.pem'), pem);
      writeFileSync(join(dir, 'ok.xml'), request);
      writeFileSync(join(dir, 'bad.xml'), tampered);
      const run = (file: string) =>
        Bun.spawnSync(['xmlsec1', '--verify', '--enabled-key-data', 'rsa', '--pubkey-cert-pem', join(dir, 'csd.pem'), join(dir, file)]);
      const ok = run('ok.xml');
      expect(ok.exitCode, ok.stderr.toString()).toBe(0);
      expect(ok.stderr.toString()).toContain('OK');
      expect(run('bad.xml').exitCode).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cancellation: idempotency, isolation, queued CFDIs', () => {
  test('Idempotency-Key: a retried cancel replays the first answer and makes no second request', async () => {
    const c = await issue();
    const first = await cancel(c.id, { motivo: '02' }, { idem: `cancel-${c.id}`, scenario: 'cancel_pending_accept' });
    const again = await cancel(c.id, { motivo: '02' }, { idem: `cancel-${c.id}`, scenario: 'cancel_pending_accept' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(first.json.id);
    expect(await t.count(cfdiCancellations, eq(cfdiCancellations.cfdiId, c.id))).toBe(1);
    // Concurrent retries with one key: one request.
    const d = await issue();
    const both = await Promise.all([1, 2].map(() => cancel(d.id, { motivo: '03' }, { idem: `cancel-${d.id}` })));
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(await t.count(cfdiCancellations, eq(cfdiCancellations.cfdiId, d.id))).toBe(1);
  });

  test('Idempotency-Key after a crash mid-request: the retry answers from the request it recorded, no second one', async () => {
    const c = await issue();
    const idem = `crash-cancel-${c.id}`;
    const first = await cancel(c.id, { motivo: '02' }, { idem, scenario: 'cancel_pending_accept' });
    expect(first.status).toBe(202);
    // What a process killed after recording the request, before storing its answer, leaves behind:
    await t.exec(sql`update idempotency_keys set status = 0, body = ${Buffer.alloc(0)} where key = ${idem}`);
    const retried = await cancel(c.id, { motivo: '02' }, { idem, scenario: 'cancel_pending_accept' });
    expect(retried.status).toBe(202);
    expect(retried.json).toMatchObject({ id: first.json.id, status: 'en_proceso' });
    expect(await t.count(cfdiCancellations, eq(cfdiCancellations.cfdiId, c.id))).toBe(1);
    await poll(); // accepted: the same situation now answers 200 cancelado
    await t.exec(sql`update idempotency_keys set status = 0, body = ${Buffer.alloc(0)} where key = ${idem}`);
    const resolved = await cancel(c.id, { motivo: '02' }, { idem, scenario: 'cancel_pending_accept' });
    expect(resolved.status).toBe(200);
    expect(resolved.json).toMatchObject({ id: first.json.id, status: 'cancelado' });
  });

  test('another tenant (or the live environment) cannot cancel, read, download, consult or withdraw (404)', async () => {
    const c = await issue();
    expect((await cancel(c.id, { motivo: '02' }, { scenario: 'cancel_pending_accept' })).status).toBe(202);
    for (const token of [other, live]) {
      for (const ref of [c.id, c.uuid]) {
        expect((await cancel(ref, { motivo: '02' }, { token })).status).toBe(404);
        for (const path of ['cancellation', 'cancellation/request.xml', 'cancellation/acuse.xml', 'sat-status']) {
          expect((await t.call('GET', `/cfdis/${ref}/${path}`, { token })).status, path).toBe(404);
        }
        expect((await t.call('POST', `/cfdis/${ref}/withdraw`, { token })).status).toBe(404);
      }
    }
    expect(await statusOf(c.id)).toBe('cancelacion_pendiente');
  });

  test('a queued CFDI cannot be cancelled (409 pointing at withdraw); withdrawn it is fallido and never stamped', async () => {
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice(100), headers: { 'x-sandbox-scenario': 'pac_slow' } });
    expect(res.status).toBe(202);
    const id = res.json.id as string;
    const refused = await cancel(id, { motivo: '02' });
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain(`POST /api/v1/cfdis/${id}/withdraw`);
    expect((await t.call('GET', `/cfdis/${id}/sat-status`, { token: key })).status).toBe(404);
    const withdrawn = await t.call('POST', `/cfdis/${id}/withdraw`, { token: key });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.json).toMatchObject({ id, status: 'fallido' });
    expect((await t.call('POST', `/cfdis/${id}/withdraw`, { token: key })).status).toBe(409);
    expect((await cancel(id, { motivo: '02' })).json.error.message).toContain('never stamped');
    t.clock.advance(60_000);
    await t.app.worker.drain();
    // The slow synchronous attempt (in flight when withdrawn) still stamps it: SAT has it, so it is vigente again.
    await until(async () => (await t.call('GET', `/cfdis/${id}`, { token: key })).json.status === 'vigente', 'the late stamp is recorded');
    const after = (await t.call('GET', `/cfdis/${id}`, { token: key })).json;
    expect(after.status).toBe('vigente');
    expect(after.uuid).toMatch(/^[0-9A-F-]{36}$/);
    // A vigente CFDI cannot be withdrawn: it is cancelled instead.
    expect((await t.call('POST', `/cfdis/${id}/withdraw`, { token: key })).json.error.message).toContain('cancel it instead');
  });

  test('a CFDI withdrawn while no attempt is in flight stays fallido (the queued job does nothing)', async () => {
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice(100), headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    expect(res.status).toBe(202);
    const id = res.json.id as string;
    expect((await t.call('POST', `/cfdis/${id}/withdraw`, { token: key })).status).toBe(200);
    t.clock.advance(60_000);
    await t.app.worker.drain();
    expect(await statusOf(id)).toBe('fallido');
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, eventReceiver, ICV, issuer, READY } from '../../helpers.ts';
import { cfdis } from '../../../src/db/schema/index.ts';

/**
 * An integrator's own references: `metadata` on invoices and clients, `external_id` on invoices (unique per tenant
 * and environment, filterable), and both echoed in every webhook event of the invoice.
 */
const t = await createTestApp({ wakeOnEnqueue: false, webhookAllowPrivate: true, webhookRetrySchedule: [0, 1], cancellationPollSeconds: 60 });
const invoice = (extra: Record<string, unknown> = {}) => ({
  tipo: 'I',
  forma_pago: '03',
  receptor: ICV,
  ...extra,
  conceptos: [
    {
      clave_prod_serv: '84111506',
      clave_unidad: 'E48',
      descripcion: 'Servicio',
      cantidad: '1',
      valor_unitario: '100',
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
});

const receiver = eventReceiver();
const { received } = receiver;
afterAll(receiver.stop);

let key = '';
let other = '';
beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  other = (await issuer(t, READY)).key;
  const hook = await t.call('POST', '/webhooks', {
    token: key,
    body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['cfdi.timbrado', 'cfdi.encolado', 'cfdi.fallido', 'cfdi.cancelado'] },
  });
  expect(hook.status).toBe(201);
});

const deliver = async () => {
  await t.app.worker.drain();
  await t.app.worker.drain();
};
const eventsOf = (id: string) => received.filter((e) => e.data.cfdi_id === id);
const count = () => t.count(cfdis);

describe('external_id and metadata on invoices', () => {
  test('sent on POST /cfdis: echoed by the 201, GET and the list, and found by GET /cfdis?external_id=', async () => {
    const metadata = { pedido: 'SO-1001', canal: 'tienda en línea', vacío: '' };
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'SO-1001', metadata }) });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ external_id: 'SO-1001', metadata });
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: key });
    expect(got.json).toMatchObject({ external_id: 'SO-1001', metadata });

    const found = await t.call('GET', '/cfdis?external_id=SO-1001', { token: key });
    expect(found.status).toBe(200);
    expect(found.json.data).toHaveLength(1);
    expect(found.json.data[0]).toMatchObject({ id: res.json.id, external_id: 'SO-1001', metadata });
    // Exact, not a prefix or a case-insensitive match.
    for (const q of ['SO-100', 'so-1001', 'SO-10011']) expect((await t.call('GET', `/cfdis?external_id=${q}`, { token: key })).json.data).toEqual([]);
    // Without them: null and {}.
    const plain = await t.call('POST', '/cfdis', { token: key, body: invoice() });
    expect(plain.json).toMatchObject({ external_id: null, metadata: {} });
  });

  test('a second invoice with the same external_id is 409 naming the field and the first invoice; no folio is used', async () => {
    const first = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'SO-2002' }), headers: { 'idempotency-key': 'order-2002' } });
    expect(first.status).toBe(201);
    const before = await count();
    const again = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'SO-2002', metadata: { intento: '2' } }) });
    expect(again.status).toBe(409);
    expect(again.json.error.details).toEqual([{ field: 'external_id', issue: expect.stringContaining(first.json.id) }]);
    expect(again.json.error.message).toContain(first.json.id);
    expect(await count()).toEqual(before);
    // The next invoice takes the next folio: the refused one used none.
    const next = await t.call('POST', '/cfdis', { token: key, body: invoice() });
    expect(next.json.folio).toBe(first.json.folio + 1);
    // An Idempotency-Key retry of the first request still replays its 201.
    const replay = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'SO-2002' }), headers: { 'idempotency-key': 'order-2002' } });
    expect(replay.status).toBe(201);
    expect(replay.json.id).toBe(first.json.id);
  });

  test('tenants are isolated: another tenant may use the same external_id and never finds ours', async () => {
    const ours = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'SO-3003' }) });
    expect(ours.status).toBe(201);
    // (A different document: the same RFC stamping identical XML would get the same UUID.)
    const theirs = await t.call('POST', '/cfdis', { token: other, body: invoice({ external_id: 'SO-3003', condiciones_de_pago: 'Contado' }) });
    expect(theirs.status).toBe(201);
    const listed = await t.call('GET', '/cfdis?external_id=SO-3003', { token: other });
    expect(listed.json.data.map((c: any) => c.id)).toEqual([theirs.json.id]);
    expect((await t.call('GET', '/cfdis?external_id=SO-1001', { token: other })).json.data).toEqual([]);
  });

  test('every webhook event of the invoice carries its external_id and metadata: timbrado, cancelado, encolado, fallido', async () => {
    const metadata = { pedido: 'SO-4004' };
    const stamped = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'SO-4004', metadata }) });
    expect(stamped.status).toBe(201);
    expect((await t.call('POST', `/cfdis/${stamped.json.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);

    // Queued and then withdrawn: it keeps both (and its external_id stays taken, so the ERP finds the failed invoice).
    const queued = await t.call('POST', '/cfdis', {
      token: key,
      body: invoice({ external_id: 'SO-4005', metadata }),
      headers: { 'x-sandbox-scenario': 'pac_unavailable' },
    });
    expect(queued.status).toBe(202);
    expect(queued.json).toMatchObject({ status: 'en_cola', external_id: 'SO-4005', metadata });
    expect((await t.call('GET', `/cfdis/${queued.json.id}`, { token: key })).json).toMatchObject({ status: 'en_cola', external_id: 'SO-4005', metadata });
    expect((await t.call('POST', `/cfdis/${queued.json.id}/withdraw`, { token: key })).status).toBe(200);
    const reused = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'SO-4005' }) });
    expect(reused.status).toBe(409);
    expect(reused.json.error.details[0].issue).toContain(queued.json.id);
    expect((await t.call('GET', '/cfdis?external_id=SO-4005', { token: key })).json.data).toEqual([
      expect.objectContaining({ id: queued.json.id, status: 'fallido' }),
    ]);

    await deliver();
    const stampedEvents = eventsOf(stamped.json.id);
    expect(stampedEvents.map((e) => e.event).sort()).toEqual(['cfdi.cancelado', 'cfdi.timbrado']);
    const queuedEvents = eventsOf(queued.json.id);
    expect(queuedEvents.map((e) => e.event).sort()).toEqual(['cfdi.encolado', 'cfdi.fallido']);
    for (const e of stampedEvents) expect(e.data).toMatchObject({ external_id: 'SO-4004', metadata });
    for (const e of queuedEvents) expect(e.data).toMatchObject({ external_id: 'SO-4005', metadata });
  });

  test('bounds and characters: 400 naming the field, nothing stored', async () => {
    const before = await count();
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    const cases: [Record<string, unknown>, string, string][] = [
      [{ metadata: tooMany }, 'metadata', 'at most 50 keys'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`, 'key must be at most 40 characters'],
      [{ metadata: { nota: 'x'.repeat(501) } }, 'metadata.nota', 'at most 500 characters'],
      [{ metadata: { nota: 'a\u0000b' } }, 'metadata.nota', 'control characters'],
      [{ metadata: { 'a\nb': 'v' } }, 'metadata.a\nb', 'control characters'],
      [{ metadata: { cantidad: 3 } }, 'metadata.cantidad', 'expected string'],
      [{ metadata: ['a'] }, 'metadata', 'expected record'],
      [{ external_id: 'x'.repeat(256) }, 'external_id', 'at most 255 characters'],
      [{ external_id: '' }, 'external_id', 'must not be empty'],
      [{ external_id: 'SO\u00071' }, 'external_id', 'control characters'],
      [{ external_id: 'SO-\ud8001' }, 'external_id', 'invalid unicode'],
      [{ external_id: 42 }, 'external_id', 'expected string'],
    ];
    for (const [extra, field, issue] of cases) {
      const res = await t.call('POST', '/cfdis', { token: key, body: invoice(extra) });
      expect(res.status, JSON.stringify(extra).slice(0, 80)).toBe(400);
      expect(res.json.error.details).toContainEqual({ field, issue: expect.stringContaining(issue) });
    }
    expect((await t.call('GET', `/cfdis?external_id=${'x'.repeat(256)}`, { token: key })).status).toBe(400);
    expect(await count()).toEqual(before);
    // The bounds themselves are accepted.
    const edge = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${i}`.padStart(40, 'k'), 'v'.repeat(500)]));
    const ok = await t.call('POST', '/cfdis', { token: key, body: invoice({ external_id: 'E'.repeat(255), metadata: edge }) });
    expect(ok.status).toBe(201);
    expect(ok.json.metadata).toEqual(edge);
  });
});

describe('metadata on clients', () => {
  test('POST, GET, PATCH (replaces; {} clears; omitted keeps) and not copied into a receptor_id invoice', async () => {
    const created = await t.call('POST', '/clients', { token: key, body: { ...ICV, metadata: { erp_id: 'C-77' } } });
    expect(created.status).toBe(201);
    expect(created.json.metadata).toEqual({ erp_id: 'C-77' });
    expect((await t.call('GET', `/clients/${created.json.id}`, { token: key })).json.metadata).toEqual({ erp_id: 'C-77' });
    expect((await t.call('GET', '/clients', { token: key })).json.data.find((c: any) => c.id === created.json.id).metadata).toEqual({ erp_id: 'C-77' });

    const kept = await t.call('PATCH', `/clients/${created.json.id}`, { token: key, body: { nombre: 'INMOBILIARIA CVA' } });
    expect(kept.json.metadata).toEqual({ erp_id: 'C-77' });
    const replaced = await t.call('PATCH', `/clients/${created.json.id}`, { token: key, body: { metadata: { segmento: 'mayoreo' } } });
    expect(replaced.status).toBe(200);
    expect(replaced.json.metadata).toEqual({ segmento: 'mayoreo' });

    const issued = await t.call('POST', '/cfdis', {
      token: key,
      body: { ...invoice({ metadata: { pedido: 'SO-5005' } }), receptor: undefined, receptor_id: created.json.id },
    });
    expect(issued.status).toBe(201);
    expect(issued.json.metadata).toEqual({ pedido: 'SO-5005' });

    const cleared = await t.call('PATCH', `/clients/${created.json.id}`, { token: key, body: { metadata: {} } });
    expect(cleared.json.metadata).toEqual({});
    const plain = await t.call('POST', '/clients', { token: key, body: ICV });
    expect(plain.json.metadata).toEqual({});

    const bad = await t.call('PATCH', `/clients/${created.json.id}`, { token: key, body: { metadata: { nota: 'x'.repeat(501) } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toContainEqual({ field: 'metadata.nota', issue: 'must be at most 500 characters' });
    const badCreate = await t.call('POST', '/clients', { token: key, body: { ...ICV, metadata: { a: 1 } } });
    expect(badCreate.status).toBe(400);
    expect(badCreate.json.error.details[0].field).toBe('metadata.a');
  });
});

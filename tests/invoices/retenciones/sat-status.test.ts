import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { withTransaction } from '../../../src/db/index.ts';
import { RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { bornStamped } from '../../../src/invoices/retenciones/lifecycle.ts';
import { getRetencionRow, getRetencionXml } from '../../../src/invoices/retenciones/reads.ts';
import { newId } from '../../../src/lib/ids.ts';
import { createTestApp, expectStatus, issuer, READY } from '../../helpers.ts';
import { startRetencionesPage } from '../../pac/sat-retenciones-mock.ts';

/**
 * GET /retenciones/{id}/sat-status in live mode: SAT's verification page for Retenciones (SAT_RETENCIONES_CONSULTA_URL,
 * here the mock of tests/pac/sat-retenciones-mock.ts) asked and read; 503 with Retry-After when it cannot be read;
 * another tenant's or environment's retención 404.
 */
const page = startRetencionesPage();
afterAll(() => page.stop());
const t = await createTestApp({ satRetencionesConsultaUrl: page.url });

let a: Awaited<ReturnType<typeof issuer>>;
let b: Awaited<ReturnType<typeof issuer>>;
beforeAll(async () => {
  a = await issuer(t, { ...READY, keys: ['test', 'live'] });
  b = await issuer(t, { ...READY, keys: ['test', 'live'] });
});

/**
 * A stamped live retención of `a`: live stamping of Retenciones is not in this branch, so one issued in test mode is
 * written again under a UUID of its own in the live environment, through the table's owner (lifecycle.ts).
 */
async function liveRetencion(example: keyof typeof RetencionExamples = 'retencion_arrendamiento') {
  const res = await t.call('POST', '/retenciones', { token: a.key, body: structuredClone(RetencionExamples[example].value) });
  expect(res.status).toBe(201);
  const scope = { tenantId: a.tenant.id, environment: 'test' as const };
  const issued = await getRetencionRow(t.db, scope, res.json.id);
  const { xml } = await getRetencionXml(t.db, scope, issued.id);
  const row = { ...issued, id: newId('ret'), environment: 'live' as const, status: 'vigente' as const, uuid: crypto.randomUUID().toUpperCase() };
  await withTransaction(t.db, { isolation: 'read committed', name: 'test.live_retencion' }, (tx) => bornStamped(tx, row, xml.toString('utf8'), new Date()));
  return { id: row.id, uuid: row.uuid, rfcEmisor: row.summary.emisor.rfc, rfcReceptor: row.receptorRfc };
}
const satStatus = (ref: string, token = a.live) => t.api('GET', `/retenciones/${ref}/sat-status`, { token });

describe("live mode: SAT's verification page", () => {
  test('Vigente, then Cancelado with its date, read from the page asked with the UUID and both RFCs; fuente sat', async () => {
    const r = await liveRetencion();
    page.control.known.set(r.uuid, { rfcEmisor: r.rfcEmisor, rfcReceptor: r.rfcReceptor!, estado: 'Vigente' });
    const vigente = expectStatus(await satStatus(r.id), 200);
    expect(vigente.json).toEqual({
      uuid: r.uuid,
      consulted_at: expect.any(String),
      estado: 'Vigente',
      estatus_cancelacion: null,
      fecha_cancelacion: null,
      fuente: 'sat',
    });
    expect(Object.fromEntries(page.control.requests.at(-1)!)).toEqual({ folio: r.uuid, rfcEmisor: r.rfcEmisor, rfcReceptor: r.rfcReceptor! });

    page.control.known.set(r.uuid, { rfcEmisor: r.rfcEmisor, rfcReceptor: r.rfcReceptor!, estado: 'Cancelado', fechaCancelacion: '2025-03-01T10:00:00' });
    const cancelado = expectStatus(await satStatus(r.uuid.toLowerCase()), 200);
    expect(cancelado.json).toMatchObject({
      uuid: r.uuid,
      estado: 'Cancelado',
      estatus_cancelacion: null,
      fecha_cancelacion: '2025-03-01T16:00:00.000Z',
      fuente: 'sat',
    });
    // Read-only: what SAT says does not move the retención.
    expect((await t.call('GET', `/retenciones/${r.id}`, { token: a.live })).json.status).toBe('vigente');
  });

  test('one SAT does not know (yet): No Encontrado', async () => {
    const r = await liveRetencion();
    expect(expectStatus(await satStatus(r.id), 200).json).toMatchObject({ uuid: r.uuid, estado: 'No Encontrado', fuente: 'sat' });
  });

  test('a receptor Extranjero: rfcReceptor sent empty', async () => {
    const r = await liveRetencion('retencion_pagos_extranjeros');
    expect(r.rfcReceptor).toBeNull();
    page.control.known.set(r.uuid, { rfcEmisor: r.rfcEmisor, rfcReceptor: '', estado: 'Vigente' });
    expect(expectStatus(await satStatus(r.id), 200).json).toMatchObject({ estado: 'Vigente' });
    expect(page.control.requests.at(-1)!.get('rfcReceptor')).toBe('');
  });

  for (const [what, answer] of [
    ['HTTP 500', 'http500'],
    ['a page we do not recognise', { html: '<html><body><form id="captcha"></form></body></html>' }],
  ] as const)
    test(`${what}: 503 with Retry-After, naming sat`, async () => {
      const r = await liveRetencion();
      page.control.answer = answer;
      try {
        const res = await t.call('GET', `/retenciones/${r.id}/sat-status`, { token: a.live });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('30');
        expect(res.json.error.details[0].field).toBe('sat');
      } finally {
        page.control.answer = 'page';
      }
    });

  test("another tenant's live retención, or the same one from the test environment: 404, and SAT is not asked", async () => {
    const r = await liveRetencion();
    const asked = page.control.requests.length;
    for (const ref of [r.id, r.uuid]) {
      expect((await satStatus(ref, b.live)).status).toBe(404);
      expect((await satStatus(ref, a.key)).status).toBe(404);
    }
    expect(page.control.requests.length).toBe(asked);
  });
});

describe('test mode', () => {
  test("the sandbox answers, never SAT's page: fuente sandbox", async () => {
    const res = await t.call('POST', '/retenciones', { token: a.key, body: structuredClone(RetencionExamples.retencion_arrendamiento.value) });
    const asked = page.control.requests.length;
    expect(expectStatus(await satStatus(res.json.id, a.key), 200).json).toMatchObject({ uuid: res.json.uuid, estado: 'Vigente', fuente: 'sandbox' });
    expect(page.control.requests.length).toBe(asked);
  });
});

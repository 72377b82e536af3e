import { describe, expect, test } from 'bun:test';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { child, parseXml } from '../../../src/cfdi/xml.ts';
import { concepto, createTestApp, ICV, issuer, READY } from '../../helpers.ts';
import { cadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';

async function setup() {
  const t = await createTestApp();
  const reg = await issuer(t, READY);
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { token: reg.key, body });
  const receipt = async () => {
    const res = await call('POST', '/receipts', { forma_pago: '01', conceptos: [concepto()] });
    expect(res.status).toBe(201);
    return res.json as { id: string; fecha: string };
  };
  const receiptsOf = async (cfdiId: string) => (await call('GET', `/receipts?cfdi_id=${cfdiId}`)).json.data.map((r: { id: string }) => r.id).sort();
  const statusOf = async (id: string) => (await call('GET', `/receipts/${id}`)).json.status;
  return { t, reg, call, receipt, receiptsOf, statusOf };
}

describe('a cancelled global invoice or self-invoice gives its receipts back; a global invoice can be replaced', () => {
  test('a cancelled self-invoice: its receipt is open again and can be invoiced again', async () => {
    const { call, receipt, statusOf } = await setup();
    const r = await receipt();
    const first = await call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV });
    expect(first.status).toBe(201);
    expect(await statusOf(r.id)).toBe('invoiced');
    expect((await call('POST', `/cfdis/${first.json.id}/cancel`, { motivo: '02' })).status).toBe(200);
    expect(await statusOf(r.id)).toBe('open');
    expect((await call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV })).status).toBe(201);
  }, 30_000);

  test('a cancelled global invoice: its receipts are open again; `replaces` issues the period again, without a relation', async () => {
    const { call, receipt, receiptsOf, statusOf } = await setup();
    const [a, b] = [await receipt(), await receipt()];
    const day = a!.fecha.slice(0, 10);
    const old = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day });
    expect(old.status).toBe(201);
    expect((await call('POST', `/cfdis/${old.json.id}/cancel`, { motivo: '02' })).status).toBe(200);
    expect([await statusOf(a!.id), await statusOf(b!.id)]).toEqual(['open', 'open']);
    expect(await receiptsOf(old.json.id)).toEqual([]);

    const again = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day, replaces: old.json.id });
    expect(again.status).toBe(201);
    expect(again.json.metadata).toMatchObject({ replaces: old.json.id });
    expect(await receiptsOf(again.json.id)).toEqual([a!.id, b!.id].sort());
  }, 30_000);

  test('a vigente global invoice replaced (TipoRelacion 04, valid for SAT), then cancelled with motivo 01: the receipts stay with the replacement', async () => {
    const { t, reg, call, receipt, receiptsOf } = await setup();
    const [a, b] = [await receipt(), await receipt()];
    const day = a!.fecha.slice(0, 10);
    const old = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day });
    expect(old.status).toBe(201);
    // Sold after the first global invoice: open, and not part of the substitution.
    const later = await receipt();

    const replacement = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day, replaces: old.json.id });
    expect(replacement.status).toBe(201);
    expect(await receiptsOf(replacement.json.id)).toEqual([a!.id, b!.id].sort());
    expect(await receiptsOf(old.json.id)).toEqual([]);
    expect((await call('GET', `/receipts/${later.id}`)).json.status).toBe('open');

    const xml = await (await t.app.request(`/api/v1/cfdis/${replacement.json.uuid}/xml`, { headers: { authorization: `Bearer ${reg.key}` } })).text();
    expect((await validateAgainstSatXsd(xml)).errors).toEqual([]);
    const root = parseXml(xml);
    expect(cadenaOriginal(root)).toBe(await cadenaFromSatXslt(xml));
    const relacionados = child(root, 'cfdi:CfdiRelacionados')!;
    expect(relacionados.attrs.TipoRelacion).toBe('04');
    expect(child(relacionados, 'cfdi:CfdiRelacionado')!.attrs.UUID).toBe(old.json.uuid);

    const cancelled = await call('POST', `/cfdis/${old.json.id}/cancel`, { motivo: '01', folio_sustitucion: replacement.json.uuid });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.cfdi_status).toBe('cancelado');
    expect(await receiptsOf(replacement.json.id)).toEqual([a!.id, b!.id].sort());
    for (const r of [a!, b!]) expect((await call('GET', `/receipts/${r.id}`)).json).toMatchObject({ status: 'invoiced', cfdi_id: replacement.json.id });
  }, 30_000);

  test('replaces: not a global invoice, unknown, malformed, or of a period that does not cover its receipts → 400 naming the field', async () => {
    const { call, receipt } = await setup();
    const r = await receipt();
    const day = r.fecha.slice(0, 10);
    const own = await call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV });
    const other = await receipt();
    const global = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day });
    expect(global.status).toBe(201);
    const cases: [unknown, string][] = [
      [own.json.id, 'replaces'],
      ['cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x', 'replaces'],
      ['not-an-id', 'replaces'],
    ];
    for (const [replaces, field] of cases) {
      const res = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day, replaces });
      expect([replaces, res.status, res.json.error.details.map((d: { field: string }) => d.field)]).toEqual([replaces, 400, [field]]);
    }
    const wrongPeriod = await call('POST', '/receipts/global-invoice', {
      periodicidad: '01',
      desde: '2020-01-01',
      hasta: '2020-01-01',
      replaces: global.json.id,
    });
    expect(wrongPeriod.status).toBe(400);
    expect(wrongPeriod.json.error.details[0].field).toBe('desde');
    expect((await call('GET', `/receipts/${other.id}`)).json.status).toBe('invoiced');
  }, 30_000);
});

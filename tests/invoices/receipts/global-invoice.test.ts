import { describe, expect, test } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { tfdCadena, tfdFromNode } from '../../../src/cfdi/tfd.ts';
import { child, childrenNamed as children, parseXml } from '../../../src/cfdi/xml.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';
import { cadenaFromSatXslt, tfdCadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';

const IVA16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const line = (descripcion: string, cantidad: string, valor: string, over: Record<string, unknown> = {}) => ({
  clave_prod_serv: '50192100',
  cantidad,
  clave_unidad: 'H87',
  descripcion,
  valor_unitario: valor,
  impuestos: IVA16,
  ...over,
});

async function setup() {
  const t = await createTestApp();
  const reg = await issuer(t, READY);
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { token: reg.key, body });
  const receipt = async (conceptos: unknown[], over: Record<string, unknown> = {}) => {
    const res = await call('POST', '/receipts', { forma_pago: '01', conceptos, ...over });
    expect(res.status).toBe(201);
    return res.json;
  };
  const xmlOf = async (uuid: string) => (await t.app.request(`/api/v1/cfdis/${uuid}/xml`, { headers: { authorization: `Bearer ${reg.key}` } })).text();
  return { t, reg, call, receipt, xmlOf };
}

/** SAT's XSD, SAT's XSLT cadena, the issuer's Sello and the sandbox's SelloSAT. */
async function expectValidStamped(t: Awaited<ReturnType<typeof createTestApp>>, xml: string) {
  const xsd = await validateAgainstSatXsd(xml);
  expect(xsd.errors).toEqual([]);
  const root = parseXml(xml);
  const cadena = cadenaOriginal(root);
  expect(cadena).toBe(await cadenaFromSatXslt(xml));
  const certificado = Buffer.from(root.attrs.Certificado!, 'base64');
  const key = createPublicKey(new X509Certificate(certificado).publicKey.export({ type: 'spki', format: 'pem' }));
  expect(verify('sha256', Buffer.from(cadena, 'utf8'), key, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
  const tfd = tfdFromNode(child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!);
  const tfdChain = await tfdCadenaFromSatXslt(xml);
  expect(tfdCadena(tfd)).toBe(tfdChain);
  const satCert = Buffer.from(await (await t.app.request('/api/v1/sandbox/sat-certificate')).arrayBuffer());
  const satKey = createPublicKey(new X509Certificate(satCert).publicKey.export({ type: 'spki', format: 'pem' }));
  expect(verify('sha256', Buffer.from(tfdChain, 'utf8'), satKey, Buffer.from(tfd.selloSat, 'base64'))).toBe(true);
  return root;
}

describe('the global invoice', () => {
  test('3 receipts, one self-invoiced and one cancelled: one concepto for the one left, InformacionGlobal right, valid and sealed', async () => {
    const { t, call, receipt, xmlOf } = await setup();
    const left = await receipt([line('Botana', '3', '10.03125'), line('Refresco', '1', '15.52', { descuento: '1.00' })], { forma_pago: '04' });
    const selfInvoiced = await receipt([line('Pan', '1', '20.00')]);
    const cancelled = await receipt([line('Leche', '2', '25.00')]);
    expect((await call('POST', `/receipts/${selfInvoiced.id}/invoice`, { receptor: ICV })).status).toBe(201);
    expect((await call('POST', `/receipts/${cancelled.id}/cancel`)).status).toBe(200);

    const day = left.fecha.slice(0, 10);
    const res = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      status: 'vigente',
      total: left.total,
      subtotal: left.subtotal,
      receptor: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL' },
    });

    const root = await expectValidStamped(t, await xmlOf(res.json.uuid));
    expect(root.attrs.FormaPago).toBe('04');
    expect(root.attrs.MetodoPago).toBe('PUE');
    expect(child(root, 'cfdi:InformacionGlobal')!.attrs).toEqual({ Periodicidad: '01', Meses: day.slice(5, 7), Año: day.slice(0, 4) });
    expect(child(root, 'cfdi:Receptor')!.attrs).toMatchObject({
      Rfc: 'XAXX010101000',
      Nombre: 'PUBLICO EN GENERAL',
      RegimenFiscalReceptor: '616',
      UsoCFDI: 'S01',
      DomicilioFiscalReceptor: root.attrs.LugarExpedicion,
    });
    const conceptos = children(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
    expect(conceptos).toHaveLength(1);
    expect(conceptos[0]!.attrs).toMatchObject({
      ClaveProdServ: '01010101',
      NoIdentificacion: left.folio,
      Cantidad: '1',
      ClaveUnidad: 'ACT',
      Descripcion: 'Venta',
      ObjetoImp: '02',
      Descuento: '1.00',
    });
    expect(Number(conceptos[0]!.attrs.ValorUnitario)).toBe(left.subtotal);
    expect(Number(root.attrs.Total)).toBe(left.total);

    expect((await call('GET', `/receipts/${left.id}`)).json).toMatchObject({ status: 'invoiced', invoiced_by: 'global', cfdi_id: res.json.id });
    expect((await call('GET', `/receipts/${selfInvoiced.id}`)).json.invoiced_by).toBe('self');
    expect((await call('GET', `/receipts/${cancelled.id}`)).json.status).toBe('cancelled');

    // Nothing open is left: 400; a receipt in it cannot be invoiced on its own, and the answer says why.
    const empty = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day });
    expect(empty.status).toBe(400);
    expect(empty.json.error.details[0].field).toBe('desde');
    const own = await call('POST', `/receipts/${left.id}/invoice`, { receptor: ICV });
    expect(own.status).toBe(409);
    expect(own.json.error.details[0].issue).toContain('global invoice');
  });

  test('several receipts: one concepto each in order, the sum of their totals, taxes summed per rate, the largest forma de pago', async () => {
    const { t, call, receipt, xmlOf } = await setup();
    const made = [
      await receipt([line('A', '1', '100.00')], { forma_pago: '01' }),
      await receipt([line('B', '1', '250.00'), line('C', '1', '10.00', { impuestos: undefined, objeto_imp: '01' })], { forma_pago: '03' }),
      await receipt([line('D', '1', '50.00', { impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.000000' }] } })], {
        forma_pago: '01',
      }),
      await receipt([line('E', '1', '30.00', { impuestos: undefined, objeto_imp: '01' })], { forma_pago: '01' }),
    ];
    const month = made[0].fecha.slice(5, 7);
    const year = made[0].fecha.slice(0, 4);
    const res = await call('POST', '/receipts/global-invoice', { periodicidad: '04', meses: month, anio: year });
    expect(res.status).toBe(201);
    const root = await expectValidStamped(t, await xmlOf(res.json.uuid));
    expect(child(root, 'cfdi:InformacionGlobal')!.attrs).toEqual({ Periodicidad: '04', Meses: month, Año: year });
    const conceptos = children(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
    expect(conceptos.map((c) => c.attrs.NoIdentificacion)).toEqual(made.map((r) => r.folio));
    expect(conceptos.map((c) => c.attrs.ObjetoImp)).toEqual(['02', '02', '02', '01']);
    const traslado = child(child(child(conceptos[1]!, 'cfdi:Impuestos')!, 'cfdi:Traslados')!, 'cfdi:Traslado')!;
    expect(traslado.attrs).toMatchObject({ Base: '250.00', TasaOCuota: '0.160000', Importe: '40.00' });
    expect(Number(root.attrs.Total)).toBe(made.reduce((s, r) => s + r.total, 0));
    expect(root.attrs.FormaPago).toBe('03'); // 300.00 by transfer, 196.00 in cash
  });

  test('invalid periods → 400 naming the field; other periods are left alone', async () => {
    const { call, receipt } = await setup();
    const r = await receipt([line('A', '1', '100.00')]);
    const cases: [unknown, string][] = [
      [{ periodicidad: '01', desde: '2026-11-02', hasta: '2026-11-01' }, 'hasta'],
      [{ periodicidad: '01', desde: '2026-11-01', hasta: '2026-11-02' }, 'hasta'],
      [{ periodicidad: '02', desde: '2026-10-28', hasta: '2026-11-03' }, 'hasta'],
      [{ periodicidad: '04', desde: '2026-11-01' }, 'hasta'],
      [{ periodicidad: '01', meses: '11', anio: '2026' }, 'meses'],
      [{ periodicidad: '04', meses: '13', anio: '2026' }, 'meses'],
      [{ periodicidad: '04', meses: '11', anio: '2026', desde: '2026-11-01' }, 'desde'],
      [{ periodicidad: '06', desde: '2026-11-01', hasta: '2026-11-01' }, 'periodicidad'],
      [{ periodicidad: '01', desde: '2026-02-30', hasta: '2026-02-30' }, 'desde'],
      // Bimestral is for régimen 621 only (CFDI40132): the engine's rule, named as this request's field.
      [{ periodicidad: '05', meses: String(13 + Math.floor((Number(r.fecha.slice(5, 7)) - 1) / 2)), anio: r.fecha.slice(0, 4) }, 'periodicidad'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/receipts/global-invoice', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.json.error.details.map((d: any) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    const otherDay = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: '2020-01-01', hasta: '2020-01-01' });
    expect(otherDay.status).toBe(400);
    expect((await call('GET', `/receipts/${r.id}`)).json.status).toBe('open');
  });

  test('automatic: once the period ends, the scheduled task issues it once; a period without receipts is passed over', async () => {
    const { t, call, receipt } = await setup();
    expect((await call('GET', '/receipts/settings')).json).toEqual({ auto_global_invoice: null, auto_global_invoice_through: null });
    const on = await call('PATCH', '/receipts/settings', { auto_global_invoice: '01' });
    expect(on.status).toBe(200);
    expect(on.json.auto_global_invoice).toBe('01');
    expect((await call('PATCH', '/receipts/settings', { auto_global_invoice: '07' })).status).toBe(400);

    const a = await receipt([line('A', '1', '100.00')]);
    const b = await receipt([line('B', '1', '10.00')]);
    // The day has not ended: nothing to issue.
    expect(await t.app.issueScheduledGlobalInvoices()).toEqual({ issued: 0, failed: 0 });
    t.clock.advance(24 * 3600 * 1000);
    expect(await t.app.issueScheduledGlobalInvoices()).toEqual({ issued: 1, failed: 0 });
    const after = (await call('GET', `/receipts/${a.id}`)).json;
    expect(after).toMatchObject({ status: 'invoiced', invoiced_by: 'global' });
    expect((await call('GET', `/receipts/${b.id}`)).json.cfdi_id).toBe(after.cfdi_id);
    const cfdi = (await call('GET', `/cfdis/${after.cfdi_id}`)).json;
    expect(cfdi).toMatchObject({ status: 'vigente', total: 127.6 });
    expect((await call('GET', '/receipts/settings')).json.auto_global_invoice_through).toBe(a.fecha.slice(0, 10));
    // Again, and two days later with no sales: nothing more.
    expect(await t.app.issueScheduledGlobalInvoices()).toEqual({ issued: 0, failed: 0 });
    t.clock.advance(2 * 24 * 3600 * 1000);
    expect(await t.app.issueScheduledGlobalInvoices()).toEqual({ issued: 0, failed: 0 });
    expect((await call('GET', '/cfdis')).json.data).toHaveLength(1);
  });
});

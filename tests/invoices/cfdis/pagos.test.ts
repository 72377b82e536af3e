import { beforeAll, describe, expect, test } from 'bun:test';
import { child, childrenNamed, parseXml, type XmlNode } from '../../../src/cfdi/xml.ts';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';
import { cadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { cfdis } from '../../../src/db/schema/index.ts';

/**
 * Issue 9, Pagos 2.0 through the API: the service fills each paid document from the PPD invoice it issued, tracks
 * the balance across receipts (parcialidades chaining exactly to zero), refuses overpayment, PUE invoices and other
 * tenants' invoices, and converts currencies with EquivalenciaDR.
 */
const t = await createTestApp();
const CP01 = { ...ICV, uso_cfdi: 'CP01' };
let key = '';
let other = '';

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  other = (await issuer(t, READY)).key;
});

const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const ppd = (valor: string, over: Record<string, unknown> = {}) => ({
  tipo: 'I',
  metodo_pago: 'PPD',
  forma_pago: '99',
  receptor: ICV,
  conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Servicio', cantidad: 1, valor_unitario: valor, impuestos: iva16 }],
  ...over,
});
const pastFecha = () => localDateTime(new Date(t.clock.now.getTime() - 3600_000), '42501');
const pagoBody = (documentos: Record<string, unknown>[], over: Record<string, unknown> = {}) => ({
  tipo: 'P',
  receptor: CP01,
  pagos: [{ fecha_pago: pastFecha(), forma_pago: '03', moneda: 'MXN', monto: sumOf(documentos), documentos, ...over }],
});
const sumOf = (docs: Record<string, unknown>[]) => docs.reduce((a, d) => a + Math.round(Number(d.imp_pagado) * 100), 0) / 100;

async function issue(body: unknown, token = key) {
  const res = await t.call('POST', '/cfdis', { token, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.json as { id: string; uuid: string; pagos?: { documentos: Record<string, unknown>[] }[] };
}
async function xmlOf(uuid: string, token = key): Promise<string> {
  const res = await t.app.request(`/api/v1/cfdis/${uuid}/xml`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res.text();
}
const doctos = (xml: string): XmlNode[] => {
  const pagos = child(child(parseXml(xml), 'cfdi:Complemento')!, 'pago20:Pagos')!;
  return childrenNamed(pagos, 'pago20:Pago').flatMap((p) => childrenNamed(p, 'pago20:DoctoRelacionado'));
};
async function rejected(body: unknown, field: string, issue: RegExp, rule?: string, token = key) {
  const before = await t.count(cfdis);
  const res = await t.call('POST', '/cfdis', { token, body });
  expect(res.status).toBe(400);
  const detail = (res.json.error.details as { field: string; issue: string; rule?: string }[]).find((d) => d.field === field);
  if (!detail) throw new Error(`no detail for ${field}: ${res.text}`);
  expect(detail.issue).toMatch(issue);
  if (rule) expect(detail.rule).toBe(rule);
  // Nothing stored, no folio used.
  expect(await t.count(cfdis)).toEqual(before);
}

describe('Pagos: an invoice paid in three instalments', () => {
  test('parcialidades 1, 2, 3 with saldo anterior / pagado / insoluto chaining exactly to zero; a fourth payment → 400', async () => {
    const invoice = await issue(ppd('1000.00')); // total 1160.00
    const paid = ['400.00', '333.33', '426.67'];
    const expected = [
      ['1', '1160.00', '400.00', '760.00'],
      ['2', '760.00', '333.33', '426.67'],
      ['3', '426.67', '426.67', '0.00'],
    ];
    for (const [i, amount] of paid.entries()) {
      const receipt = await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: amount }]));
      const [d] = doctos(await xmlOf(receipt.uuid));
      const a = d!.attrs;
      expect([a.NumParcialidad, a.ImpSaldoAnt, a.ImpPagado, a.ImpSaldoInsoluto]).toEqual(expected[i]!);
      expect(a.IdDocumento).toBe(invoice.uuid);
      expect(a.MonedaDR).toBe('MXN');
      expect(a.EquivalenciaDR).toBe('1');
      expect(a.ObjetoImpDR).toBe('02');
      // IVA of the amount paid: BaseDR = 1000 × pagado / 1160, ImporteDR = 160 × pagado / 1160.
      const traslado = child(child(child(d!, 'pago20:ImpuestosDR')!, 'pago20:TrasladosDR')!, 'pago20:TrasladoDR')!.attrs;
      const base = Number(traslado.BaseDR),
        iva = Number(traslado.ImporteDR);
      expect(Math.abs(base - (Number(amount) * 1000) / 1160)).toBeLessThanOrEqual(0.005);
      expect(Math.abs(iva - (Number(amount) * 160) / 1160)).toBeLessThanOrEqual(0.005);
      expect(receipt.pagos![0]!.documentos[0]).toMatchObject({ num_parcialidad: i + 1, imp_pagado: Number(amount) });
      const status = await t.call('GET', `/cfdis/${invoice.id}`, { token: key });
      expect(status.json).toMatchObject({ saldo_insoluto: Number(expected[i]![3]), parcialidades: i + 1 });
    }
    await rejected(
      pagoBody([{ uuid: invoice.uuid, imp_pagado: '0.01' }]),
      'pagos[0].documentos[0].imp_pagado',
      /no outstanding balance: it is fully paid/,
      'CRP20239',
    );
  });

  test('overpaying → 400 CRP20244 naming the document; the balance is untouched', async () => {
    const invoice = await issue(ppd('500.00')); // 580.00
    await rejected(
      pagoBody([{ cfdi_id: invoice.id, imp_pagado: '580.01' }]),
      'pagos[0].documentos[0].imp_pagado',
      /exceeds the outstanding balance .* \(580\.00 MXN\)/,
      'CRP20244',
    );
    // Two payments in one receipt that together overpay are refused too.
    const twice = {
      tipo: 'P',
      receptor: CP01,
      pagos: [1, 2].map(() => ({
        fecha_pago: pastFecha(),
        forma_pago: '03',
        moneda: 'MXN',
        monto: '300.00',
        documentos: [{ cfdi_id: invoice.id, imp_pagado: '300.00' }],
      })),
    };
    await rejected(twice, 'pagos[1].documentos[0].imp_pagado', /exceeds the outstanding balance .* \(280\.00 MXN\)/, 'CRP20244');
    expect((await t.call('GET', `/cfdis/${invoice.id}`, { token: key })).json).toMatchObject({ saldo_insoluto: 580, parcialidades: 0 });
  });

  test('a monto smaller than the documents paid → 400 CRP20217', async () => {
    const invoice = await issue(ppd('500.00'));
    await rejected(
      pagoBody([{ cfdi_id: invoice.id, imp_pagado: '100.00' }], { monto: '99.99' }),
      'pagos[0].monto',
      /less than the sum of imp_pagado/,
      'CRP20217',
    );
  });

  test("a PUE invoice, another tenant's invoice, a cancelled one, or one to another receptor → 400", async () => {
    const pue = await issue({ ...ppd('100.00'), metodo_pago: 'PUE', forma_pago: '03' });
    await rejected(pagoBody([{ cfdi_id: pue.id, imp_pagado: '10.00' }]), 'pagos[0].documentos[0].cfdi_id', /metodo_pago PUE/);
    t.clock.advance(1000);
    const foreign = await issue(ppd('100.00'), other);
    await rejected(pagoBody([{ uuid: foreign.uuid, imp_pagado: '10.00' }]), 'pagos[0].documentos[0].uuid', /no CFDI .* in this tenant and environment/);
    await rejected(pagoBody([{ cfdi_id: foreign.id, imp_pagado: '10.00' }]), 'pagos[0].documentos[0].cfdi_id', /no CFDI .* in this tenant and environment/);
    // Sending "full data" does not turn another issuer's invoice into a payable document.
    await rejected(
      pagoBody([{ uuid: foreign.uuid, imp_pagado: '10.00', moneda: 'MXN', imp_saldo_ant: '116.00', num_parcialidad: 1 }]),
      'pagos[0].documentos[0].uuid',
      /the issuer's own invoices/,
    );
    const cancelled = await issue(ppd('100.00'));
    expect((await t.call('POST', `/cfdis/${cancelled.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
    await rejected(pagoBody([{ uuid: cancelled.uuid, imp_pagado: '10.00' }]), 'pagos[0].documentos[0].uuid', /is cancelado/);
    const toPf = await issue(
      ppd('100.00', { receptor: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '01000', uso_cfdi: 'G03' } }),
    );
    await rejected(
      pagoBody([{ uuid: toPf.uuid, imp_pagado: '10.00' }]),
      'pagos[0].documentos[0].uuid',
      /issued to FUNK671228PH6, not to this receptor ICV060329BY0/,
    );
  });

  test('cancelling a Pago gives its instalment back; an invoice with a standing Pago is No cancelable', async () => {
    const invoice = await issue(ppd('100.00')); // 116.00
    const receipt = await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '16.00' }]));
    const blocked = await t.call('POST', `/cfdis/${invoice.id}/cancel`, { token: key, body: { motivo: '02' } });
    expect(blocked.status).toBe(409);
    expect(blocked.json.error.details).toContainEqual({ field: 'pagos', issue: `the Pago ${receipt.uuid} pays it` });
    expect((await t.call('POST', `/cfdis/${receipt.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
    expect((await t.call('GET', `/cfdis/${invoice.id}`, { token: key })).json).toMatchObject({ saldo_insoluto: 116, parcialidades: 0 });
    const again = await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '116.00' }]));
    expect(doctos(await xmlOf(again.uuid))[0]!.attrs).toMatchObject({ NumParcialidad: '1', ImpSaldoAnt: '116.00', ImpSaldoInsoluto: '0.00' });
  });
});

describe('Pagos across currencies', () => {
  test('USD payment of an MXN invoice: EquivalenciaDR = TipoCambioP, ImpuestosP in USD, Totales in MXN', async () => {
    const invoice = await issue(ppd('2500.00')); // 2900.00 MXN
    const receipt = await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '1750.00' }], { moneda: 'USD', tipo_cambio: '17.50', monto: '100.00' }));
    const xml = await xmlOf(receipt.uuid);
    const root = parseXml(xml);
    const pagos = child(child(root, 'cfdi:Complemento')!, 'pago20:Pagos')!;
    const pago = child(pagos, 'pago20:Pago')!;
    expect(pago.attrs).toMatchObject({ MonedaP: 'USD', TipoCambioP: '17.50', Monto: '100.00' });
    const d = child(pago, 'pago20:DoctoRelacionado')!.attrs;
    expect(d).toMatchObject({ MonedaDR: 'MXN', EquivalenciaDR: '17.5', ImpSaldoAnt: '2900.00', ImpPagado: '1750.00', ImpSaldoInsoluto: '1150.00' });
    // The answer's rates are JSON numbers, as its amounts are.
    const answered = (await t.call('GET', `/cfdis/${receipt.id}`, { token: key })).json.pagos[0];
    expect(answered).toMatchObject({ tipo_cambio: 17.5, monto: 100, documentos: [{ equivalencia: 17.5, imp_pagado: 1750 }] });
    // The document's 1750 MXN are 100 USD: BaseDR 1508.62 MXN → BaseP 86.206857 USD; IVA 241.38 MXN → 13.793143 USD.
    const trasladoP = child(child(child(pago, 'pago20:ImpuestosP')!, 'pago20:TrasladosP')!, 'pago20:TrasladoP')!.attrs;
    expect(trasladoP).toMatchObject({ BaseP: '86.206857', ImporteP: '13.793143', TasaOCuotaP: '0.160000' });
    expect(child(pagos, 'pago20:Totales')!.attrs).toEqual({
      TotalTrasladosBaseIVA16: '1508.62',
      TotalTrasladosImpuestoIVA16: '241.38',
      MontoTotalPagos: '1750.00',
    });
    expect((await validateAgainstSatXsd(xml)).errors).toEqual([]);
    expect(cadenaOriginal(root)).toBe(await cadenaFromSatXslt(xml));
  });

  test('a USD document paid in MXN needs equivalencia (CRP20237); with it, the USD balance moves', async () => {
    const invoice = await issue(ppd('100.00', { moneda: 'USD', tipo_cambio: '17.00' })); // 116.00 USD
    await rejected(
      pagoBody([{ cfdi_id: invoice.id, imp_pagado: '50.00' }], { monto: '850.00' }),
      'pagos[0].documentos[0].equivalencia',
      /units of USD per 1 MXN/,
      'CRP20237',
    );
    const receipt = await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '50.00', equivalencia: '0.0588235294' }], { monto: '850.00' }));
    expect(doctos(await xmlOf(receipt.uuid))[0]!.attrs).toMatchObject({
      MonedaDR: 'USD',
      EquivalenciaDR: '0.0588235294',
      ImpSaldoAnt: '116.00',
      ImpPagado: '50.00',
      ImpSaldoInsoluto: '66.00',
    });
  });

  test('same currency with equivalencia ≠ 1 → 400 CRP20238; MXN payment with tipo_cambio ≠ 1 → CRP20215; USD without it → CRP20214', async () => {
    const invoice = await issue(ppd('100.00'));
    await rejected(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '10.00', equivalencia: '2' }]), 'pagos[0].documentos[0].equivalencia', /must be 1/, 'CRP20238');
    await rejected(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '10.00' }], { tipo_cambio: '17.0' }), 'pagos[0].tipo_cambio', /must be 1/, 'CRP20215');
    await rejected(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '10.00' }], { moneda: 'USD', monto: '1' }), 'pagos[0].tipo_cambio', /is required/, 'CRP20214');
    // A zero rate is refused, not used as the MXN document's EquivalenciaDR (a division by zero, once a 500).
    await rejected(
      pagoBody([{ cfdi_id: invoice.id, imp_pagado: '10.00' }], { moneda: 'USD', tipo_cambio: '0', monto: '1' }),
      'pagos[0].tipo_cambio',
      /is required/,
      'CRP20214',
    );
  });
});

describe('Pagos: documents issued elsewhere', () => {
  test('accepted with their full data; without it → 400 naming what is missing', async () => {
    const uuid = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    await rejected(pagoBody([{ uuid, imp_pagado: '100.00' }]), 'pagos[0].documentos[0].moneda', /not a CFDI issued here/);
    const receipt = await issue(pagoBody([{ uuid, imp_pagado: '100.00', moneda: 'MXN', imp_saldo_ant: '300.00', num_parcialidad: 2 }]));
    expect(doctos(await xmlOf(receipt.uuid))[0]!.attrs).toMatchObject({
      IdDocumento: uuid.toUpperCase(),
      NumParcialidad: '2',
      ImpSaldoAnt: '300.00',
      ImpSaldoInsoluto: '200.00',
      ObjetoImpDR: '01',
    });
  });

  test('their taxes are checked like SAT does (ImporteDR window CRP20261, objeto_imp 02 without taxes CRP20246)', async () => {
    const uuid = '3f2504e0-4f89-41d3-9a0c-0305e82c3302';
    const doc = { uuid, imp_pagado: '116.00', moneda: 'MXN', imp_saldo_ant: '116.00', num_parcialidad: 1, objeto_imp: '02' };
    await rejected(pagoBody([doc]), 'pagos[0].documentos[0].impuestos', /are required/, 'CRP20246');
    const wrong = { ...doc, impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', base: '100.00', importe: '17.00' }] } };
    await rejected(pagoBody([wrong]), 'pagos[0].documentos[0].impuestos.traslados[0].importe', /must be between 15.99 and 16.01/, 'CRP20261');
  });

  test('data of an invoice issued here cannot be overridden', async () => {
    const invoice = await issue(ppd('100.00'));
    await rejected(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '10.00', imp_saldo_ant: '5000' }]), 'pagos[0].documentos[0].imp_saldo_ant', /issued here/);
  });
});

describe('Pagos: the voucher itself', () => {
  test('fixed concepto, SubTotal 0, Total 0, Moneda XXX, UsoCFDI CP01, no FormaPago/MetodoPago', async () => {
    const invoice = await issue(ppd('100.00'));
    const receipt = await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '116.00' }]));
    const root = parseXml(await xmlOf(receipt.uuid));
    expect(root.attrs).toMatchObject({ SubTotal: '0', Total: '0', Moneda: 'XXX', TipoDeComprobante: 'P', Exportacion: '01' });
    expect(root.attrs.FormaPago).toBeUndefined();
    expect(root.attrs.MetodoPago).toBeUndefined();
    expect(child(root, 'cfdi:Receptor')!.attrs.UsoCFDI).toBe('CP01');
    expect(child(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto')!.attrs).toEqual({
      ClaveProdServ: '84111506',
      Cantidad: '1',
      ClaveUnidad: 'ACT',
      Descripcion: 'Pago',
      ValorUnitario: '0',
      Importe: '0',
      ObjetoImp: '01',
    });
  });

  test('forma_pago 99 (CRP20212), moneda XXX in a payment (CRP20213), bank data for cash (CRP20221)', async () => {
    const invoice = await issue(ppd('100.00'));
    const doc = [{ cfdi_id: invoice.id, imp_pagado: '10.00' }];
    await rejected(pagoBody(doc, { forma_pago: '99' }), 'pagos[0].forma_pago', /actually used/, 'CRP20212');
    await rejected(pagoBody(doc, { moneda: 'XXX' }), 'pagos[0].moneda', /not XXX/, 'CRP20213');
    await rejected(
      pagoBody(doc, { forma_pago: '01', rfc_emisor_cta_ord: 'BMI9704113PA' }),
      'pagos[0].rfc_emisor_cta_ord',
      /must not be sent with forma_pago 01/,
      'CRP20221',
    );
    await rejected(pagoBody(doc, { forma_pago: '03', cta_ordenante: '12345' }), 'pagos[0].cta_ordenante', /must match/, 'CRP20225');
  });
});

describe('Pagos: instalment numbers', () => {
  test('an explicit num_parcialidad already taken → 400; the 1000th instalment → 400 (SAT allows 999)', async () => {
    const invoice = await issue(ppd('1000.00'));
    await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '1.00', num_parcialidad: 998 }]));
    await rejected(
      pagoBody([{ cfdi_id: invoice.id, imp_pagado: '1.00', num_parcialidad: 998 }]),
      'pagos[0].documentos[0].num_parcialidad',
      /instalment 998 .* already covered/,
    );
    await issue(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '1.00' }])); // 999
    await rejected(pagoBody([{ cfdi_id: invoice.id, imp_pagado: '1.00' }]), 'pagos[0].documentos[0].num_parcialidad', /at most 999/, 'CRP20999');
  });
});

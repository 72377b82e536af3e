import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { comprobanteNode } from '../../../src/cfdi/build.ts';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import type { ImpuestosLocalesInput } from '../../../src/cfdi/complements/implocal10/input.ts';
import type { ImpuestosLocalesModel } from '../../../src/cfdi/complements/implocal10/model.ts';
import { totalAdjustment } from '../../../src/cfdi/complements/implocal10/rules.ts';
import { Dec } from '../../../src/cfdi/decimal.ts';
import type { ComprobanteModel, TaxLine } from '../../../src/cfdi/model.ts';
import { parseXml, serializeXml } from '../../../src/cfdi/xml.ts';
import { cadenaFromSatXslt, SAT_DIR, validateAgainstSatXsd } from '../../sat/verify.ts';
import { run } from './fixtures.ts';

const d = Dec.parse;

/** A one-concepto invoice with its federal taxes, as the engine's comprobanteNode writes it for a hand-made model. */
function comprobante(descripcion: string, importe: string, traslados: TaxLine[], retenciones: TaxLine[], local: ImpuestosLocalesModel): ComprobanteModel {
  const subTotal = d(importe);
  const trasladados = traslados.reduce((a, t) => a.add(t.importe!), Dec.ZERO);
  const retenidos = retenciones.reduce((a, t) => a.add(t.importe!), Dec.ZERO);
  return {
    fecha: '2026-11-20T10:00:00',
    formaPago: '03',
    subTotal,
    moneda: 'MXN',
    // SAT's guide for the complement: the local taxes enter the Total.
    total: subTotal.add(trasladados).sub(retenidos).add(totalAdjustment(local)),
    tipo: 'I',
    exportacion: '01',
    metodoPago: 'PUE',
    lugarExpedicion: '64000',
    relacionados: [],
    emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimenFiscal: '601' },
    receptor: { rfc: 'URE180429TM6', nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', domicilioFiscal: '86991', regimenFiscal: '601', usoCfdi: 'G03' },
    conceptos: [
      {
        claveProdServ: '90111800',
        cantidad: d('1'),
        claveUnidad: 'E48',
        descripcion,
        valorUnitario: subTotal,
        importe: subTotal,
        objetoImp: '02',
        traslados,
        retenciones,
      },
    ],
    impuestos: {
      retenciones: retenciones.map((r) => ({ impuesto: r.impuesto, importe: r.importe! })),
      traslados,
      totalRetenidos: retenciones.length ? retenidos : undefined,
      totalTrasladados: traslados.length ? trasladados : undefined,
    },
  };
}

/** The document as the engine writes it: the registry puts the complement in cfdi:Complemento and its namespace on the root. */
function cfdiDocument(m: ComprobanteModel, local: ImpuestosLocalesModel): string {
  return serializeXml(comprobanteNode({ ...m, impuestosLocales: local }, { noCertificado: '30001000000500003416', certificadoBase64: '' }));
}

async function expectSatValid(req: ImpuestosLocalesInput, build: (local: ImpuestosLocalesModel) => ComprobanteModel): Promise<{ xml: string; cadena: string }> {
  // The context's Total is the federal one: the comprobante built without local taxes.
  const federal = build({ retenciones: [], traslados: [], totaldeRetenciones: Dec.ZERO, totaldeTraslados: Dec.ZERO });
  const { model, problems } = run(req, { tipo: 'I', subTotal: federal.subTotal, total: federal.total });
  expect(problems).toEqual([]);
  const xml = cfdiDocument(build(model), model);
  expect(await validateAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });
  const sat = await cadenaFromSatXslt(xml);
  expect(cadenaOriginal(parseXml(xml))).toBe(sat);
  return { xml, cadena: sat };
}

const iva = (base: string, importe: string): TaxLine => ({ base: d(base), impuesto: '002', tipoFactor: 'Tasa', tasaOCuota: '0.160000', importe: d(importe) });

describe('impuestosLocalesNode: SAT XSD and cadena (implocal.xsd, implocal.xslt)', () => {
  test('a hotel night with ISH 3 %: Total 1,785.00 = 1,500.00 + IVA 240.00 + ISH 45.00', async () => {
    const { xml, cadena } = await expectSatValid({ traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3' }] }, (local) =>
      comprobante('Hospedaje, una noche', '1500.00', [iva('1500.00', '240.00')], [], local),
    );
    expect(xml).toContain('Total="1785.00"');
    expect(cadena).toEndWith('|1.0|0.00|45.00|ISH|3|45.00||');
  });

  test('fees with federal and local retentions: Total 9,333.33 after a 2 % cedular tax', async () => {
    const isr: TaxLine = { base: d('10000.00'), impuesto: '001', tipoFactor: 'Tasa', tasaOCuota: '0.100000', importe: d('1000.00') };
    const ivaRet: TaxLine = { base: d('10000.00'), impuesto: '002', tipoFactor: 'Tasa', tasaOCuota: '0.106667', importe: d('1066.67') };
    const { xml, cadena } = await expectSatValid(
      { retenciones: [{ imp_loc_retenido: 'Impuesto  cedular\tsobre honorarios', tasa_de_retencion: '2' }] },
      (local) => comprobante('Honorarios', '10000.00', [iva('10000.00', '1600.00')], [isr, ivaRet], local),
    );
    expect(xml).toContain('Total="9333.33"');
    // normalize-space collapses the blanks of the name, as the engine's steps do.
    expect(cadena).toEndWith('|1.0|200.00|0.00|Impuesto cedular sobre honorarios|2|200.00||');
  });

  test('both kinds, several lines, a line with its own base', async () => {
    const { cadena } = await expectSatValid(
      {
        retenciones: [
          { imp_loc_retenido: 'Cedular', tasa_de_retencion: '1.5' },
          { imp_loc_retenido: 'Bomberos & Cruz "Roja"', tasa_de_retencion: '0.25', base: '1000.50' },
        ],
        traslados: [
          { imp_loc_trasladado: 'ISH', tasa_de_traslado: '3.00', base: '1000.50' },
          { imp_loc_trasladado: 'Saneamiento', tasa_de_traslado: '0.5', importe: '10.00' },
        ],
      },
      (local) => comprobante('Hospedaje y alimentos', '2000.00', [iva('2000.00', '320.00')], [], local),
    );
    expect(cadena).toEndWith('|1.0|32.50|40.02|Cedular|1.5|30.00|Bomberos & Cruz "Roja"|0.25|2.50|ISH|3.00|30.02|Saneamiento|0.5|10.00||');
  });

  test("SAT's implocal fixture: the engine's cadena equals the stored cadena", async () => {
    const xml = readFileSync(join(SAT_DIR, 'samples', 'cfdi40-implocal-sin-sello-fixture.xml'), 'utf8');
    const stored = readFileSync(join(SAT_DIR, 'samples', 'cfdi40-implocal-sin-sello-fixture.cadena.txt'), 'utf8');
    expect(cadenaOriginal(parseXml(xml))).toBe(stored);
  });
});

import { describe, expect, test } from 'bun:test';
import { comprobanteNode } from '../../../src/cfdi/build.ts';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import type { ConceptoHidrocarburosInput } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/input.ts';
import { Dec, sum } from '../../../src/cfdi/decimal.ts';
import type { ComprobanteModel, ConceptoModel, TaxLine } from '../../../src/cfdi/model.ts';
import { parseXml, serializeXml } from '../../../src/cfdi/xml.ts';
import { cadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';
import { DIESEL, run } from './fixtures.ts';

const d = Dec.parse;

/** A concepto of litres at a price, with IVA 16 %. */
function litros(claveProdServ: string, descripcion: string, cantidad: string, valorUnitario: string): ConceptoModel {
  const importe = d(cantidad).mul(d(valorUnitario)).round(2);
  const iva: TaxLine = { base: importe, impuesto: '002', tipoFactor: 'Tasa', tasaOCuota: '0.160000', importe: importe.mul(d('0.16')).round(2) };
  return {
    claveProdServ,
    cantidad: d(cantidad),
    claveUnidad: 'LTR',
    descripcion,
    valorUnitario: d(valorUnitario),
    importe,
    objetoImp: '02',
    traslados: [iva],
    retenciones: [],
  };
}

function comprobante(conceptos: ConceptoModel[]): ComprobanteModel {
  const subTotal = sum(conceptos.map((c) => c.importe));
  const iva = sum(conceptos.map((c) => c.traslados[0]!.importe!));
  return {
    fecha: '2026-11-20T10:00:00',
    formaPago: '04',
    subTotal,
    moneda: 'MXN',
    total: subTotal.add(iva),
    tipo: 'I',
    exportacion: '01',
    metodoPago: 'PUE',
    lugarExpedicion: '64000',
    relacionados: [],
    emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimenFiscal: '601' },
    receptor: { rfc: 'URE180429TM6', nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', domicilioFiscal: '86991', regimenFiscal: '601', usoCfdi: 'G03' },
    conceptos,
    impuestos: {
      retenciones: [],
      traslados: [{ base: subTotal, impuesto: '002', tipoFactor: 'Tasa', tasaOCuota: '0.160000', importe: iva }],
      totalTrasladados: iva,
    },
  };
}

/** The document as the engine writes it: the registry puts each concepto's complement in its ComplementoConcepto and the namespace on the root. */
function cfdiDocument(m: ComprobanteModel, requests: ConceptoHidrocarburosInput[]): string {
  const { models, problems } = run(requests);
  expect(problems).toEqual([]);
  const conceptos = m.conceptos.map((c, i) => (models[i] ? { ...c, hidrocarburosPetroliferos: models[i] } : c));
  return serializeXml(comprobanteNode({ ...m, conceptos }, { noCertificado: '30001000000500003416', certificadoBase64: '' }));
}

async function expectSatValid(m: ComprobanteModel, requests: ConceptoHidrocarburosInput[]): Promise<string> {
  const xml = cfdiDocument(m, requests);
  expect(await validateAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });
  const sat = await cadenaFromSatXslt(xml);
  expect(cadenaOriginal(parseXml(xml))).toBe(sat);
  return sat;
}

describe('hidroYPetroNode: SAT XSD and cadena (hidrocarburospetroliferos.xsd, hidrocarburospetroliferos.xslt)', () => {
  test('diesel with its permit: the complement follows its concepto in the cadena', async () => {
    const cadena = await expectSatValid(comprobante([litros('15101505', 'Diésel', '113.000', '28.41')]), [
      { clave_prod_serv: '15101505', hidrocarburos_petroliferos: DIESEL },
    ]);
    expect(cadena).toContain('|15101505|113.000|LTR|Diésel|28.41|3210.33|02|3210.33|002|Tasa|0.160000|513.65|1.0|PER07|PL/23456/EXP/ES/2024|15101505|SP18|');
  });

  test('three conceptos: gasoline of both grades around a service that carries none; blanks collapsed', async () => {
    const cadena = await expectSatValid(
      comprobante([
        litros('15101514', 'Gasolina regular', '40.5', '23.99'),
        litros('78181500', 'Lavado de parabrisas', '1', '50'),
        litros('15101515', 'Gasolina premium', '30', '25.49'),
      ]),
      [
        {
          clave_prod_serv: '15101514',
          hidrocarburos_petroliferos: { tipo_permiso: 'PER11', numero_permiso: 'PL/12345/EXP/ES/2026', sub_producto_hyp: 'SP16' },
        },
        { clave_prod_serv: '78181500' },
        {
          clave_prod_serv: '15101515',
          hidrocarburos_petroliferos: { tipo_permiso: 'PER07', numero_permiso: '  PL/12345/EXP/ES/2026 ', sub_producto_hyp: 'SP17' },
        },
      ],
    );
    expect(cadena).toContain('|1.0|PER11|PL/12345/EXP/ES/2026|15101514|SP16|78181500|');
    expect(cadena).toContain('|1.0|PER07|PL/12345/EXP/ES/2026|15101515|SP17|');
  });
});

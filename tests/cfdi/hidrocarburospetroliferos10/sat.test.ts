import { describe, expect, test } from 'bun:test';
import { comprobanteNode } from '../../../src/cfdi/build.ts';
import { cadenaOriginal, run as runSteps } from '../../../src/cfdi/cadena.ts';
import { HIDROCARBUROS_PETROLIFEROS_10 } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/cadena.ts';
import type { ConceptoHidrocarburosInput } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/input.ts';
import { HIDROCARBUROS_PETROLIFEROS_NS, hidroYPetroNode } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/xml.ts';
import { Dec, sum } from '../../../src/cfdi/decimal.ts';
import type { ComprobanteModel, ConceptoModel, TaxLine } from '../../../src/cfdi/model.ts';
import { child, childrenNamed, el, parseXml, serializeXml, type XmlNode } from '../../../src/cfdi/xml.ts';
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

/**
 * The document with each concepto's complement pushed into its cfdi:ComplementoConcepto (last: the engine writes no
 * InformacionAduanera, CuentaPredial or Parte) and the namespace declared (the registry's job, later).
 */
function cfdiDocument(m: ComprobanteModel, requests: ConceptoHidrocarburosInput[]): string {
  const { models, problems } = run(requests);
  expect(problems).toEqual([]);
  const root = comprobanteNode(m, { noCertificado: '30001000000500003416', certificadoBase64: '' });
  root.attrs[`xmlns:${HIDROCARBUROS_PETROLIFEROS_NS.prefix}`] = HIDROCARBUROS_PETROLIFEROS_NS.uri;
  root.attrs['xsi:schemaLocation'] += ` ${HIDROCARBUROS_PETROLIFEROS_NS.uri} ${HIDROCARBUROS_PETROLIFEROS_NS.xsd}`;
  const conceptos = childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
  models.forEach((h, i) => {
    if (h) conceptos[i]!.children.push(el('cfdi:ComplementoConcepto', {}, [hidroYPetroNode(h)]));
  });
  return serializeXml(root);
}

/** The engine's cadena of the document cut after its first `n` conceptos (no Impuestos, no Complemento), without the closing `||`. */
function cadenaThrough(root: XmlNode, n: number): string {
  const conceptos = child(root, 'cfdi:Conceptos')!;
  const cut: XmlNode = {
    ...root,
    children: root.children
      .filter((c) => c.name !== 'cfdi:Impuestos' && c.name !== 'cfdi:Complemento')
      .map((c) => (c === conceptos ? { ...c, children: c.children.slice(0, n) } : c)),
  };
  return cadenaOriginal(cut).slice(0, -2);
}

/**
 * Our cadena: the engine's, with each concepto's complement part written where cadenaoriginal_4_0.xslt applies the
 * ComplementoConcepto templates, right after that concepto's own values (it has no CuentaPredial or Parte).
 */
function ourCadena(root: XmlNode): string {
  const full = cadenaOriginal(root);
  const conceptos = childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
  let out = '';
  let done = '';
  conceptos.forEach((c, i) => {
    const through = cadenaThrough(root, i + 1);
    expect(through.startsWith(done)).toBe(true);
    out += through.slice(done.length);
    done = through;
    for (const h of childrenNamed(child(c, 'cfdi:ComplementoConcepto') ?? { name: '', attrs: {}, children: [] }, 'hidrocarburospetroliferos:HidroYPetro')) {
      const part: string[] = [];
      runSteps(h, HIDROCARBUROS_PETROLIFEROS_10, part);
      out += part.join('');
    }
  });
  return out + full.slice(done.length);
}

async function expectSatValid(m: ComprobanteModel, requests: ConceptoHidrocarburosInput[]): Promise<string> {
  const xml = cfdiDocument(m, requests);
  expect(await validateAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });
  const sat = await cadenaFromSatXslt(xml);
  expect(ourCadena(parseXml(xml))).toBe(sat);
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

import { describe, expect, test } from 'bun:test';
import { comprobanteNode } from '../../../src/cfdi/build.ts';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import type { ComercioExteriorInput } from '../../../src/cfdi/complements/comercioexterior20/input.ts';
import type { ComercioExteriorContext, ComercioExteriorModel } from '../../../src/cfdi/complements/comercioexterior20/model.ts';
import { Dec, sum } from '../../../src/cfdi/decimal.ts';
import type { ComprobanteModel } from '../../../src/cfdi/model.ts';
import { parseXml, serializeXml } from '../../../src/cfdi/xml.ts';
import { cadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';
import { CTX, concepto, run, USA_DOMICILIO, VALID } from './fixtures.ts';

/**
 * A CFDI 4.0 around the complement, as the engine's comprobanteNode writes it for a hand-made model: the registry
 * puts the node in cfdi:Complemento and declares its namespace and schemaLocation.
 */
function cfdiDocument(cce: ComercioExteriorModel, ctx: ComercioExteriorContext): string {
  const subTotal = sum(ctx.conceptos.map((c) => c.importe));
  const descuento = sum(ctx.conceptos.map((c) => c.descuento ?? Dec.ZERO));
  const m: ComprobanteModel = {
    fecha: ctx.fecha,
    formaPago: '03',
    subTotal,
    descuento: descuento.isZero() ? undefined : descuento,
    moneda: ctx.moneda,
    tipoCambio: ctx.tipoCambio,
    total: subTotal.sub(descuento),
    tipo: ctx.tipo,
    exportacion: ctx.exportacion,
    metodoPago: ctx.tipo === 'I' ? 'PUE' : undefined,
    lugarExpedicion: '64000',
    relacionados: ctx.relacionados,
    emisor: { rfc: ctx.emisor.rfc, nombre: 'EXPORTADORA DEL NORTE', regimenFiscal: '601' },
    receptor: {
      rfc: ctx.receptor.rfc,
      nombre: 'AUSTIN IMPORTS LLC',
      domicilioFiscal: '64000',
      residenciaFiscal: ctx.receptor.residenciaFiscal,
      numRegIdTrib: ctx.receptor.numRegIdTrib,
      regimenFiscal: '616',
      usoCfdi: 'S01',
    },
    comercioExterior: cce,
    conceptos: ctx.conceptos.map((c) => ({
      claveProdServ: '50201700',
      noIdentificacion: c.noIdentificacion,
      cantidad: c.cantidad,
      claveUnidad: c.claveUnidad,
      descripcion: `Mercancía ${c.noIdentificacion}`,
      valorUnitario: c.valorUnitario,
      importe: c.importe,
      descuento: c.descuento,
      objetoImp: '01',
      traslados: [],
      retenciones: [],
    })),
  };
  return serializeXml(comprobanteNode(m, { noCertificado: '30001000000500003416', certificadoBase64: '' }));
}

/** Prepares the complement (no problem expected), checks the document against SAT's XSD and its cadena against SAT's XSLT. */
async function expectSatValid(req: ComercioExteriorInput, ctx: ComercioExteriorContext): Promise<string> {
  const { model, problems } = run(req, ctx);
  expect(problems).toEqual([]);
  const xml = cfdiDocument(model, ctx);
  expect(await validateAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });
  const ours = cadenaOriginal(parseXml(xml));
  const sat = await cadenaFromSatXslt(xml);
  expect(ours).toBe(sat);
  return sat;
}

const EVERY_ATTRIBUTE: ComercioExteriorInput = {
  motivo_traslado: '05',
  clave_de_pedimento: 'A1',
  certificado_origen: 1,
  num_certificado_origen: 'CO-2026-000123',
  numero_exportador_confiable: 'MXREX20260001',
  incoterm: 'DAP',
  observaciones: 'Entrega  en\tmuelle 3 & andén "B"',
  emisor: { curp: 'CACX760510HDFRRN09' },
  propietario: [
    { num_reg_id_trib: '987654321', residencia_fiscal: 'USA' },
    { num_reg_id_trib: 'DE123456789', residencia_fiscal: 'DEU' },
  ],
  receptor: {
    domicilio: {
      ...USA_DOMICILIO,
      numero_interior: 'Suite 12',
      colonia: 'Downtown',
      localidad: 'Austin',
      referencia: 'Frente al capitolio',
      municipio: 'Travis',
    },
  },
  destinatario: [
    {
      num_reg_id_trib: 'DE987654321',
      nombre: 'Lager Hamburg GmbH',
      domicilio: [
        { calle: 'Hafenstraße', numero_exterior: '7', estado: 'Hamburg', pais: 'DEU', codigo_postal: '20457' },
        { calle: 'Speicherstadt', estado: 'Hamburg', pais: 'DEU', codigo_postal: '20457', colonia: 'HafenCity' },
      ],
    },
  ],
  mercancias: [
    {
      no_identificacion: 'SKU-A',
      fraccion_arancelaria: '0901110300',
      cantidad_aduana: '140',
      unidad_aduana: '01',
      valor_unitario_aduana: '12.35',
      descripciones_especificas: [{ marca: 'Finca Norte', modelo: 'Altura', sub_modelo: 'Lavado', numero_serie: 'L-2026-01' }, { marca: 'Finca Norte' }],
    },
    { no_identificacion: 'SKU-B', fraccion_arancelaria: '8403100100', cantidad_aduana: '2', unidad_aduana: '06', valor_unitario_aduana: '1500' },
    { no_identificacion: 'SKU-C', fraccion_arancelaria: '8405100100', cantidad_aduana: '3', unidad_aduana: '06', valor_unitario_aduana: '980.5' },
  ],
};

describe('comercioExteriorNode: SAT XSD and cadena (ComercioExterior20.xsd, ComercioExterior20.xslt)', () => {
  test('a definitive export (A1) in USD, mercancías derived from the conceptos but their fracción', async () => {
    const cadena = await expectSatValid(VALID, CTX);
    expect(cadena).toContain('|2.0|A1|0|FCA|17.2345|7670.50|');
  });

  test('every attribute SAT defines, at once: the cadena steps follow ComercioExterior20.xslt', async () => {
    const ctx: ComercioExteriorContext = { ...CTX, tipo: 'T', emisor: { ...CTX.emisor, rfc: 'CACX7605101P8' } };
    const cadena = await expectSatValid(EVERY_ATTRIBUTE, ctx);
    // normalize-space: runs of blanks collapse; the escaped characters come back as written.
    expect(cadena).toContain('|Entrega en muelle 3 & andén "B"|');
    for (const value of ['CO-2026-000123', 'MXREX20260001', 'CACX760510HDFRRN09', 'Suite 12', 'Frente al capitolio', 'HafenCity', 'L-2026-01', '980.5'])
      expect(cadena).toContain(`|${value}|`);
  });

  test('a Traslado in MXN with one destinatario in Mexico (motivo 02: relocating own goods)', async () => {
    const ctx: ComercioExteriorContext = {
      ...CTX,
      tipo: 'T',
      moneda: 'MXN',
      tipoCambio: undefined,
      receptor: { rfc: 'EKU9003173C9' },
      conceptos: [concepto('SKU-A', '10', '250.00')],
    };
    await expectSatValid(
      {
        motivo_traslado: '02',
        tipo_cambio_usd: '17.2345',
        receptor: { domicilio: { calle: 'Juárez', colonia: '0001', localidad: '07', municipio: '039', estado: 'NLE', pais: 'MEX', codigo_postal: '64000' } },
        destinatario: [{ nombre: 'Bodega Centro', domicilio: [{ calle: 'Juárez', colonia: '3429', estado: 'NLE', pais: 'MEX', codigo_postal: '64000' }] }],
        mercancias: [{ no_identificacion: 'SKU-A', fraccion_arancelaria: '0901110300' }],
      },
      ctx,
    );
  });
});

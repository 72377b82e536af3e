import type { ComercioExteriorInput, DomicilioComercioExteriorInput } from '../../../src/cfdi/complements/comercioexterior20/input.ts';
import type { ComercioExteriorContext, ComercioExteriorModel, ConceptoComercioExterior } from '../../../src/cfdi/complements/comercioexterior20/model.ts';
import { prepareComercioExterior } from '../../../src/cfdi/complements/comercioexterior20/rules/index.ts';
import { Dec } from '../../../src/cfdi/decimal.ts';
import type { FieldProblem } from '../../../src/cfdi/input.ts';

/** The issuer's fiscal address: Monterrey Centro (c_Colonia 0001 of 64000, municipio 039, localidad 07 of NLE). */
export const EMISOR_DOMICILIO: DomicilioComercioExteriorInput = {
  calle: 'Av. Constitución',
  numero_exterior: '100',
  colonia: '0001',
  localidad: '07',
  municipio: '039',
  estado: 'NLE',
  pais: 'MEX',
  codigo_postal: '64000',
};
export const USA_DOMICILIO: DomicilioComercioExteriorInput = {
  calle: 'Congress Ave',
  numero_exterior: '500',
  estado: 'TX',
  pais: 'USA',
  codigo_postal: '78701',
};

export const concepto = (noIdentificacion: string | undefined, cantidad: string, valorUnitario: string, descuento?: string): ConceptoComercioExterior => {
  const c = Dec.parse(cantidad);
  const v = Dec.parse(valorUnitario);
  return {
    noIdentificacion,
    cantidad: c,
    claveUnidad: 'H87',
    valorUnitario: v,
    importe: c.mul(v).round(2),
    descuento: descuento ? Dec.parse(descuento) : undefined,
  };
};

/** A definitive export (A1) in USD: SKU-A is billed in two conceptos. */
export const CTX: ComercioExteriorContext = {
  tipo: 'I',
  exportacion: '02',
  moneda: 'USD',
  tipoCambio: '17.2345',
  fecha: '2026-11-20T10:00:00',
  emisor: { rfc: 'EKU9003173C9', domicilio: EMISOR_DOMICILIO },
  receptor: { rfc: 'XEXX010101000', residenciaFiscal: 'USA', numRegIdTrib: '123456789' },
  conceptos: [concepto('SKU-A', '100', '12.35'), concepto('SKU-B', '2', '1500'), concepto('SKU-A', '40', '12.35'), concepto('SKU-C', '3', '980.5')],
  relacionados: [],
};

export const VALID: ComercioExteriorInput = {
  clave_de_pedimento: 'A1',
  certificado_origen: 0,
  incoterm: 'FCA',
  receptor: { domicilio: USA_DOMICILIO },
  mercancias: [
    { no_identificacion: 'SKU-A', fraccion_arancelaria: '0901110300' },
    { no_identificacion: 'SKU-B', fraccion_arancelaria: '8403100100', descripciones_especificas: [{ marca: 'ACME', modelo: 'X1', numero_serie: 'SN-1' }] },
    { no_identificacion: 'SKU-C', fraccion_arancelaria: '8405100100' },
  ],
};

export function run(req: ComercioExteriorInput, ctx: ComercioExteriorContext = CTX): { model: ComercioExteriorModel; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const model = prepareComercioExterior(req, ctx, (field, issue, rule) => problems.push({ field, issue, rule }));
  return { model, problems };
}

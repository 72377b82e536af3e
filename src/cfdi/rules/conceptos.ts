import { catalogEntry, catalogRows, inForce, isValidKey } from '../../catalogs/index.ts';
import { Dec } from '../decimal.ts';
import type { ConceptoInput, Fail } from '../input.ts';
import type { ConceptoModel } from '../model.ts';
import { rfcCheckDigitWarning, rfcProblem } from './rfc.ts';
import { prepareTaxLine, type TaxRuleCodes } from './taxes.ts';

/** cfdi:Concepto: the fixed one of a Pago or a Nómina, or each one requested (I, E, T) with its taxes (CFDI40162–40193). */

const EXT_LEGEND =
  'EXPEDICIÓN DE CFDI POR RESIDENTES EN MÉXICO QUE PRESTAN SERVICIOS DE INTERMEDIACIÓN ENTRE TERCEROS A OFERENTES DE BIENES Y SERVICIOS RESIDENTES EN EL EXTRANJERO';

/** The one concepto SAT fixes for a Pago and a Nómina: 1 ACT, ObjetoImp 01, no taxes (CRP20111–20123, NOM13–29). */
export function fixedConcepto(claveProdServ: string, descripcion: string, valor: Dec): ConceptoModel {
  return {
    claveProdServ,
    cantidad: Dec.parse('1'),
    claveUnidad: 'ACT',
    descripcion,
    valorUnitario: valor,
    importe: valor,
    objetoImp: '01',
    traslados: [],
    retenciones: [],
  };
}

export interface ConceptoContext {
  tipo: 'I' | 'E' | 'T';
  day: string;
  decimals: number;
  emisorRfc: string;
  receptorRfc: string;
  lugar: string;
  warn: (warning: string | undefined) => void;
}

/** Amounts written at concept level: exact up to 6 decimals, at least the currency's. */
const written = (d: Dec, minDecimals: number) => d.round(6).trim(minDecimals);

export function prepareConcepto(c: ConceptoInput, at: string, ctx: ConceptoContext, fail: Fail): ConceptoModel {
  const prodServ = catalogEntry('c_ClaveProdServ', c.clave_prod_serv);
  if (!prodServ || !inForce(prodServ, ctx.day)) fail(`${at}.clave_prod_serv`, `${c.clave_prod_serv} is not in c_ClaveProdServ`, 'CFDI40162');
  else if (prodServ.complemento)
    fail(`${at}.clave_prod_serv`, `${c.clave_prod_serv} requires the complement "${prodServ.complemento}", which this service does not issue`, 'CFDI40163');
  if (!isValidKey('c_ClaveUnidad', c.clave_unidad, ctx.day)) fail(`${at}.clave_unidad`, `${c.clave_unidad} is not in c_ClaveUnidad`, 'CFDI40165');

  const cantidad = Dec.parse(c.cantidad);
  const valorUnitario = Dec.parse(c.valor_unitario);
  if (cantidad.isZero()) fail(`${at}.cantidad`, 'must be greater than 0', 'CFDI40167');
  if (valorUnitario.isZero() && ctx.tipo !== 'T') fail(`${at}.valor_unitario`, 'must be greater than 0 for I and E', 'CFDI40166');
  if (ctx.tipo === 'T') {
    // A Traslado has no comprobante-level Impuestos (CFDI40201), so its conceptos carry none, and no discounts.
    if (c.impuestos || (c.objeto_imp !== undefined && c.objeto_imp !== '01'))
      fail(`${at}.impuestos`, 'a Traslado carries no taxes: send objeto_imp 01 (or omit it) and no impuestos', 'CFDI40201');
    if (c.descuento !== undefined) fail(`${at}.descuento`, 'a Traslado carries no discounts', 'CFDI40109');
  }
  const descuentoIn = c.descuento !== undefined ? Dec.parse(c.descuento) : undefined;
  // Importe = Cantidad × ValorUnitario (always inside the CFDI40167 window), with at least the discount's decimals.
  const importe = written(cantidad.mul(valorUnitario), Math.max(ctx.decimals, descuentoIn?.decimals ?? 0));
  let descuento: Dec | undefined;
  if (descuentoIn) {
    if (descuentoIn.decimals > importe.decimals) fail(`${at}.descuento`, `has more decimals than the importe (${importe.toString()})`, 'CFDI40168');
    if (descuentoIn.cmp(importe) > 0) fail(`${at}.descuento`, `is greater than the importe (${importe.toString()})`, 'CFDI40169');
    descuento = descuentoIn;
  }

  // A forgotten tax block must not become a valid but wrong "01": on I and E, no impuestos means saying why.
  if (c.objeto_imp === undefined && !c.impuestos && ctx.tipo !== 'T') {
    const choices = catalogRows('c_ObjetoImp')
      .filter((r) => inForce(r, ctx.day))
      .map((r) => `${r.clave} (${r.descripcion!.replace(/\.$/, '')})`);
    fail(`${at}.objeto_imp`, `is required when impuestos is not sent: one of ${choices.join(', ')}; or send impuestos (02)`, 'CFDI40170');
  }
  const objetoImp = c.objeto_imp ?? (c.impuestos ? '02' : '01');
  if (!isValidKey('c_ObjetoImp', objetoImp, ctx.day)) fail(`${at}.objeto_imp`, `${objetoImp} is not in c_ObjetoImp (in force on ${ctx.day})`, 'CFDI40170');
  const trasladosIn = c.impuestos?.traslados ?? [];
  const retencionesIn = c.impuestos?.retenciones ?? [];
  const hasTaxes = trasladosIn.length + retencionesIn.length > 0;
  if (c.impuestos && !hasTaxes) fail(`${at}.impuestos`, 'must contain at least one traslado or retencion', 'CFDI40173');
  if (objetoImp === '02' && !hasTaxes) fail(`${at}.impuestos`, 'are required when objeto_imp is 02', 'CFDI40171');
  if (['01', '03', '04', '05'].includes(objetoImp) && hasTaxes) fail(`${at}.impuestos`, `must not be sent when objeto_imp is ${objetoImp}`, 'CFDI40172');
  if (['06', '08'].includes(objetoImp) && (trasladosIn.some((t) => t.impuesto !== '001') || retencionesIn.some((t) => t.impuesto !== '001'))) {
    fail(`${at}.impuestos`, `with objeto_imp ${objetoImp} only an ISR (001) retencion is allowed`, 'CFDI140226');
  }
  if (objetoImp === '07') {
    if ([...trasladosIn, ...retencionesIn].some((t) => t.impuesto === '002')) fail(`${at}.impuestos`, 'objeto_imp 07 allows no IVA', 'CFDI140227');
    if (!trasladosIn.some((t) => t.impuesto === '003')) fail(`${at}.impuestos`, 'objeto_imp 07 requires an IEPS (003) traslado', 'CFDI140227');
  }
  if (prodServ?.incluir_iva_trasladado === '1' && !trasladosIn.some((t) => t.impuesto === '002')) {
    fail(`${at}.impuestos.traslados`, `c_ClaveProdServ ${c.clave_prod_serv} requires an IVA traslado`, 'CFDI40164');
  }

  const defaultBase = importe.sub(descuento ?? Dec.ZERO);
  const computed = { base: defaultBase, decimals: ctx.decimals };
  const traslados = trasladosIn.map((t, j) => prepareTaxLine(t, `${at}.impuestos.traslados[${j}]`, 'traslado', TAX_CODES.traslado, ctx.day, fail, computed)!);
  const retenciones = retencionesIn.map(
    (t, j) => prepareTaxLine(t, `${at}.impuestos.retenciones[${j}]`, 'retencion', TAX_CODES.retencion, ctx.day, fail, computed)!,
  );

  let aCuentaTerceros: ConceptoModel['aCuentaTerceros'];
  if (c.a_cuenta_terceros) {
    const t = c.a_cuenta_terceros;
    const p = `${at}.a_cuenta_terceros`;
    const rfcIssue = rfcProblem(t.rfc);
    if (rfcIssue) fail(`${p}.rfc`, rfcIssue, 'CFDI40187');
    else ctx.warn(rfcCheckDigitWarning(t.rfc, `${p}.rfc`));
    if (t.rfc === ctx.emisorRfc || t.rfc === ctx.receptorRfc) fail(`${p}.rfc`, 'must differ from the issuer and the receptor RFC', 'CFDI40188');
    if (!isValidKey('c_RegimenFiscal', t.regimen_fiscal, ctx.day)) fail(`${p}.regimen_fiscal`, 'is not in c_RegimenFiscal', 'CFDI40190');
    if (!/^\d{5}$/.test(t.domicilio_fiscal) || !isValidKey('c_CodigoPostal', t.domicilio_fiscal, ctx.day))
      fail(`${p}.domicilio_fiscal`, 'is not in c_CodigoPostal', 'CFDI40192');
    if (t.rfc === 'EXT990101NI1') {
      if (t.nombre !== EXT_LEGEND) fail(`${p}.nombre`, `must be the legend "${EXT_LEGEND}"`, 'CFDI40189');
      if (t.regimen_fiscal !== '616') fail(`${p}.regimen_fiscal`, 'must be 616 for EXT990101NI1', 'CFDI140223');
      if (t.domicilio_fiscal !== ctx.lugar) fail(`${p}.domicilio_fiscal`, 'must equal the place of issue for EXT990101NI1', 'CFDI40193');
    }
    aCuentaTerceros = { rfc: t.rfc, nombre: t.nombre, regimenFiscal: t.regimen_fiscal, domicilioFiscal: t.domicilio_fiscal };
  }

  return {
    claveProdServ: c.clave_prod_serv,
    noIdentificacion: c.no_identificacion,
    cantidad,
    claveUnidad: c.clave_unidad,
    unidad: c.unidad,
    descripcion: c.descripcion,
    valorUnitario,
    importe,
    descuento,
    objetoImp,
    traslados,
    retenciones,
    aCuentaTerceros,
  };
}

const TAX_CODES: Record<'traslado' | 'retencion', TaxRuleCodes> = {
  traslado: {
    base: 'CFDI40174',
    impuesto: 'CFDI40175',
    tasa: 'CFDI40179',
    importe: 'CFDI40180',
    exentoRetencion: 'CFDI40184',
    exentoBare: 'CFDI40177',
    required: 'CFDI40178',
  },
  retencion: {
    base: 'CFDI40181',
    impuesto: 'CFDI40182',
    tasa: 'CFDI40185',
    importe: 'CFDI40186',
    exentoRetencion: 'CFDI40184',
    exentoBare: 'CFDI40177',
    required: 'CFDI40185',
  },
};

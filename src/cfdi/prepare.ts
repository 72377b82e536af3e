import { catalogEntry, catalogRows, inForce, isValidKey } from '../catalogs/index.ts';
import { Dec, sum } from './decimal.ts';
import type { ComprobanteInput, ConceptoInput, Fail, FieldProblem, ReceptorInput } from './input.ts';
import type { ComprobanteModel, ConceptoModel, ReceptorModel, TaxLine } from './model.ts';
import { nominaComprobanteAmounts, prepareNomina } from './nomina12/rules.ts';
import type { PaidDocument } from './pagos20/model.ts';
import { preparePagos } from './pagos20/rules.ts';
import { checkReceptor } from './rules/receptor.ts';
import { rfcCheckDigitWarning, rfcProblem } from './rules/rfc.ts';
import { prepareTaxLine, sumByTax, type TaxRuleCodes } from './rules/taxes.ts';
import { localDateTime } from './time.ts';

/**
 * Request → exact amounts → SAT rule checks. Pure: the caller supplies the issuer, the clock and the receptor
 * (resolved from receptor_id). Every problem is collected, so one response lists them all.
 */
export interface PrepareContext {
  emisor: { rfc: string; nombre: string; regimenFiscal: string; codigoPostal: string };
  receptor: ReceptorInput;
  now: Date;
  serie?: string;
  folio?: string;
  /** Pago: each pagos[i].documentos[j] as the service resolved it (undefined where it reported a problem). */
  paidDocuments?: (PaidDocument | undefined)[][];
}

export interface Prepared {
  model?: ComprobanteModel;
  errors: FieldProblem[];
  warnings: string[];
}

const MAX_AGE_MS = 72 * 3600 * 1000;
const GENERIC = new Set(['XAXX010101000', 'XEXX010101000']);
const EXT_LEGEND =
  'EXPEDICIÓN DE CFDI POR RESIDENTES EN MÉXICO QUE PRESTAN SERVICIOS DE INTERMEDIACIÓN ENTRE TERCEROS A OFERENTES DE BIENES Y SERVICIOS RESIDENTES EN EL EXTRANJERO';

export function prepareInvoice(req: ComprobanteInput, ctx: PrepareContext): Prepared {
  const errors: FieldProblem[] = [];
  const warnings: string[] = [];
  const fail = (field: string, issue: string, rule?: string) => errors.push(rule ? { field, issue, rule } : { field, issue });
  const tipo = req.tipo;
  /** Fields a voucher type must not carry, with the rule that says so. */
  const forbid = (field: keyof ComprobanteInput, why: string, rule?: string) => {
    if (req[field] !== undefined) fail(field, `must not be sent for tipo ${tipo}: ${why}`, rule);
  };

  // Fecha: the local time of the place of issue (CFDI40101), within the PAC's 72-hour window, never ahead.
  const lugar = ctx.emisor.codigoPostal;
  const nowLocal = localDateTime(ctx.now, lugar);
  const fecha = req.fecha ?? nowLocal;
  if (req.fecha) {
    if (req.fecha > nowLocal) fail('fecha', `is in the future (local time at ${lugar} is ${nowLocal})`, 'CFDI40101');
    else if (Date.parse(`${nowLocal}Z`) - Date.parse(`${req.fecha}Z`) > MAX_AGE_MS) fail('fecha', 'is more than 72 hours old: a PAC rejects it (401)', 'CFDI40101');
  }
  const day = fecha.slice(0, 10);

  // Moneda and TipoCambio (CFDI40113–40117). P and T carry no money (XXX); N is paid in MXN.
  const defaultMoneda = tipo === 'P' || tipo === 'T' ? 'XXX' : 'MXN';
  const moneda = req.moneda ?? defaultMoneda;
  const monedaRow = catalogEntry('c_Moneda', moneda);
  if (!monedaRow || !inForce(monedaRow, day)) fail('moneda', `${moneda} is not a c_Moneda key`, 'CFDI40113');
  const decimals = monedaRow ? Number(monedaRow.decimales) : 2;
  let tipoCambio: string | undefined;
  if (tipo === 'P') {
    if (moneda !== 'XXX') fail('moneda', 'must be XXX (or omitted) for a Pago: the currency of each payment goes in pagos[].moneda', 'CRP20104');
    forbid('tipo_cambio', 'the exchange rate of each payment goes in pagos[].tipo_cambio', 'CRP20109');
  } else if (tipo === 'N') {
    if (moneda !== 'MXN') fail('moneda', 'must be MXN (or omitted) for a Nómina', 'NOM1');
    forbid('tipo_cambio', 'a Nómina is in MXN', 'NOM1');
  } else if (tipo === 'T' && moneda !== 'XXX' && moneda !== 'MXN') {
    fail('moneda', 'must be XXX (default) or MXN for a Traslado: its amounts are 0', 'CFDI40113');
  } else if (!monedaRow) {
    // Unknown currency: its tipo_cambio cannot be judged.
  } else if (moneda === 'XXX') {
    if (tipo !== 'T') fail('moneda', 'XXX is only for Pago and Traslado vouchers', 'CFDI40113');
    if (req.tipo_cambio !== undefined) fail('tipo_cambio', 'must not be sent with moneda XXX', 'CFDI40116');
  } else if (moneda === 'MXN') {
    if (req.tipo_cambio !== undefined && Dec.parse(req.tipo_cambio).cmp(Dec.parse('1')) !== 0) fail('tipo_cambio', 'must be 1 (or omitted) with moneda MXN', 'CFDI40114');
    tipoCambio = req.tipo_cambio !== undefined ? '1' : undefined;
  } else if (req.tipo_cambio === undefined) {
    fail('tipo_cambio', `is required with moneda ${moneda}`, 'CFDI40115');
  } else if (Dec.parse(req.tipo_cambio).isZero()) {
    fail('tipo_cambio', 'must be greater than 0', 'CFDI40117');
  } else {
    tipoCambio = req.tipo_cambio;
  }

  // FormaPago / MetodoPago / CondicionesDePago (CFDI40103–40105, 40124, 40125): only I and E carry them; N is PUE.
  let formaPago: string | undefined;
  let metodoPago: string | undefined;
  if (tipo === 'I' || tipo === 'E') {
    metodoPago = req.metodo_pago ?? 'PUE';
    if (!isValidKey('c_MetodoPago', metodoPago, day)) fail('metodo_pago', 'must be PUE or PPD (c_MetodoPago)', 'CFDI40124');
    formaPago = req.forma_pago;
    if (formaPago === undefined) {
      formaPago = '99';
      if (metodoPago === 'PUE') warnings.push('forma_pago defaulted to 99 (Por definir); a PUE invoice should carry the form actually used');
    }
    if (!isValidKey('c_FormaPago', formaPago, day)) fail('forma_pago', `${formaPago} is not a c_FormaPago key`, 'CFDI40104');
    if (metodoPago === 'PPD' && formaPago !== '99') fail('forma_pago', 'must be 99 (Por definir) when metodo_pago is PPD', 'CFDI40105');
  } else {
    // The Guía de llenado forbids CondicionesDePago for N and T and MetodoPago for T; the matrices carry no code.
    const rules = { P: ['CRP20105', 'CRP20106', 'CRP20107'], N: ['CFDI40103', undefined, undefined], T: ['CFDI40103', 'CFDI40125', undefined] }[tipo];
    forbid('forma_pago', 'it has no form of payment', rules[0]);
    if (tipo === 'N') {
      metodoPago = 'PUE';
      if (req.metodo_pago !== undefined && req.metodo_pago !== 'PUE') fail('metodo_pago', 'must be PUE (or omitted) for a Nómina', rules[1]);
    } else {
      forbid('metodo_pago', 'it has no payment method', rules[1]);
    }
    forbid('condiciones_de_pago', 'only Ingreso and Egreso carry payment terms', rules[2]);
  }

  const exportacion = req.exportacion ?? '01';
  if (!isValidKey('c_Exportacion', exportacion, day)) fail('exportacion', `${exportacion} is not a c_Exportacion key`, 'CFDI40123');
  else if ((tipo === 'P' || tipo === 'N') && exportacion !== '01') fail('exportacion', `must be 01 for tipo ${tipo}`, tipo === 'P' ? 'CRP20102' : 'NOM3');
  else if (exportacion === '02') fail('exportacion', '02 requires the Comercio Exterior complement, which this service does not issue', 'CFDI40122');

  if (!isValidKey('c_CodigoPostal', lugar, day)) fail('tenant.codigo_postal', `${lugar} (LugarExpedicion) is not in c_CodigoPostal`, 'CFDI40126');
  if (!isValidKey('c_RegimenFiscal', ctx.emisor.regimenFiscal, day)) fail('tenant.regimen_fiscal', 'is not in c_RegimenFiscal', 'CFDI40140');

  // Receptor (CFDI40143–40161, shared with /clients).
  const receptorInput = ctx.receptor;
  const receptorPrefix = req.receptor_id && !req.receptor ? 'receptor_id' : 'receptor';
  errors.push(...checkReceptor(receptorInput, { fecha, tipo, lugarExpedicion: lugar }, receptorPrefix));
  const warn = (w: string | undefined) => w && warnings.push(w);
  warn(rfcCheckDigitWarning(receptorInput.rfc, `${receptorPrefix}.rfc`));
  if (receptorInput.rfc === ctx.emisor.rfc && !GENERIC.has(receptorInput.rfc) && tipo !== 'T') warnings.push('receptor.rfc equals the issuer RFC');
  const receptor: ReceptorModel = {
    rfc: receptorInput.rfc,
    nombre: receptorInput.nombre,
    domicilioFiscal: receptorInput.domicilio_fiscal,
    residenciaFiscal: receptorInput.residencia_fiscal,
    numRegIdTrib: receptorInput.num_reg_id_trib,
    regimenFiscal: receptorInput.regimen_fiscal,
    usoCfdi: receptorInput.uso_cfdi,
  };
  if (/\b(S\.?\s?A\.?\s?(DE\s)?C\.?\s?V\.?|S\.?\s?DE\s?R\.?\s?L\.?)\s*$/i.test(receptor.nombre)) {
    warnings.push('receptor.nombre seems to include the corporate suffix (SA DE CV …); SAT expects the name exactly as in the Constancia, without it');
  }

  // InformacionGlobal (CFDI40130–40136): invoices to the general public only.
  const publico = receptor.rfc === 'XAXX010101000' && receptor.nombre === 'PUBLICO EN GENERAL';
  let informacionGlobal: ComprobanteModel['informacionGlobal'];
  if (req.informacion_global && tipo !== 'I' && tipo !== 'E') {
    fail('informacion_global', `must not be sent for tipo ${tipo}: it is for global invoices to the general public`, tipo === 'N' ? 'NOM4' : 'CFDI40130');
  } else if (req.informacion_global) {
    const g = req.informacion_global;
    if (!isValidKey('c_Periodicidad', g.periodicidad, day)) fail('informacion_global.periodicidad', 'is not a c_Periodicidad key', 'CFDI40131');
    else if (g.periodicidad === '05' && ctx.emisor.regimenFiscal !== '621') fail('informacion_global.periodicidad', '05 (bimestral) is only for issuers in régimen 621', 'CFDI40132');
    if (!isValidKey('c_Meses', g.meses, day)) fail('informacion_global.meses', 'is not a c_Meses key', 'CFDI40133');
    else if (g.periodicidad === '05' && !(g.meses >= '13' && g.meses <= '18')) fail('informacion_global.meses', 'must be 13–18 for a bimonthly period', 'CFDI40135');
    else if (g.periodicidad !== '05' && g.meses > '12') fail('informacion_global.meses', 'must be 01–12 unless periodicidad is 05', 'CFDI40134');
    const year = Number(day.slice(0, 4));
    if (!/^\d{4}$/.test(g.anio) || Number(g.anio) > year || Number(g.anio) < year - 5) fail('informacion_global.anio', `must be between ${year - 5} and ${year}`, 'CFDI40136');
    if (!publico) fail('informacion_global', 'only applies to invoices to PUBLICO EN GENERAL (XAXX010101000)', 'CFDI40130');
    informacionGlobal = { periodicidad: g.periodicidad, meses: g.meses, anio: g.anio };
  } else if (publico && tipo === 'I') {
    fail('informacion_global', 'is required for an Ingreso to XAXX010101000 named PUBLICO EN GENERAL', 'CFDI40130');
  }

  // CfdiRelacionados (CFDI40137). A P or N relates only to the one it replaces (04).
  const relacionados = (req.cfdi_relacionados ?? []).map((r, i) => {
    if (!isValidKey('c_TipoRelacion', r.tipo_relacion, day)) fail(`cfdi_relacionados[${i}].tipo_relacion`, 'is not a c_TipoRelacion key', 'CFDI40137');
    else if ((tipo === 'P' || tipo === 'N') && r.tipo_relacion !== '04') fail(`cfdi_relacionados[${i}].tipo_relacion`, `a ${tipo === 'P' ? 'Pago' : 'Nómina'} relates only to the CFDI it replaces (04)`, 'CFDI40137');
    return { tipoRelacion: r.tipo_relacion, uuids: r.uuids.map((u) => u.toUpperCase()) };
  });

  const header = {
    serie: ctx.serie,
    folio: ctx.folio,
    fecha,
    formaPago,
    condicionesDePago: tipo === 'I' || tipo === 'E' ? req.condiciones_de_pago : undefined,
    moneda,
    tipoCambio,
    tipo,
    exportacion,
    metodoPago,
    lugarExpedicion: lugar,
    informacionGlobal,
    relacionados,
    emisor: { rfc: ctx.emisor.rfc, nombre: ctx.emisor.nombre, regimenFiscal: ctx.emisor.regimenFiscal },
    receptor,
  };
  const done = (model: ComprobanteModel | undefined): Prepared => (errors.length > 0 || !model ? { errors, warnings } : { errors, warnings, model });

  if (tipo === 'P') {
    // Pago: one fixed concepto, amounts 0, the payments in the complement (RULES §9.1, CRP20101–20123).
    const pagos = preparePagos(req.pagos ?? [], ctx.paidDocuments ?? [], { day, fecha }, fail);
    return done({ ...header, subTotal: Dec.ZERO, total: Dec.ZERO, conceptos: [fixedConcepto('84111506', 'Pago', Dec.ZERO)], pagos });
  }
  if (tipo === 'N') {
    // Nómina: one fixed concepto worth percepciones + otros pagos, deducciones as its Descuento (RULES §9.2).
    if (receptor.rfc.length !== 13) fail(`${receptorPrefix}.rfc`, 'a Nómina is issued to a worker: a persona física with a 13-character RFC', 'NOM8');
    const nomina = prepareNomina(req.nomina!, { emisorRfc: ctx.emisor.rfc, receptorRfc: receptor.rfc, fecha }, fail);
    if (!nomina) return done(undefined);
    const { subTotal, descuento, total } = nominaComprobanteAmounts(nomina);
    const concepto = { ...fixedConcepto('84111505', 'Pago de nómina', subTotal), descuento };
    return done({ ...header, subTotal, descuento, total, conceptos: [concepto], nomina });
  }

  // Conceptos (I, E, T).
  const conceptos = req.conceptos!.map((c, i) => prepareConcepto(c, `conceptos[${i}]`, { tipo, day, decimals, emisorRfc: ctx.emisor.rfc, receptorRfc: receptor.rfc, lugar, warn }, fail));

  if (tipo === 'T') {
    // Traslado: the goods moved, at their value or 0, with SubTotal and Total 0 (CFDI40109) and no taxes (CFDI40201).
    return done({ ...header, subTotal: Dec.ZERO, total: Dec.ZERO, conceptos });
  }
  if (errors.length > 0) return { errors, warnings };

  // Totals at the currency's decimals (CFDI40108, 40111, 40119, 40203–40221), from the concept values as written.
  const subTotal = sum(conceptos.map((c) => c.importe)).round(decimals);
  const withDiscount = conceptos.filter((c) => c.descuento);
  const descuento = withDiscount.length ? sum(withDiscount.map((c) => c.descuento!)).round(decimals) : undefined;
  const impuestos = summarizeTaxes(conceptos, decimals);
  let total = subTotal.sub(descuento ?? Dec.ZERO);
  if (impuestos?.totalTrasladados) total = total.add(impuestos.totalTrasladados);
  if (impuestos?.totalRetenidos) total = total.sub(impuestos.totalRetenidos);
  if (total.isNegative()) {
    fail('conceptos', `the total would be negative (${total.toString()}): retenciones and descuentos exceed the amount`, 'CFDI40119');
    return { errors, warnings };
  }
  return done({ ...header, subTotal, descuento, total: total.round(decimals), conceptos, impuestos });
}

/** The one concepto SAT fixes for a Pago and a Nómina: 1 ACT, ObjetoImp 01, no taxes (CRP20111–20123, NOM13–29). */
function fixedConcepto(claveProdServ: string, descripcion: string, valor: Dec): ConceptoModel {
  return { claveProdServ, cantidad: Dec.parse('1'), claveUnidad: 'ACT', descripcion, valorUnitario: valor, importe: valor, objetoImp: '01', traslados: [], retenciones: [] };
}

interface ConceptoContext {
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

function prepareConcepto(c: ConceptoInput, at: string, ctx: ConceptoContext, fail: Fail): ConceptoModel {
  const prodServ = catalogEntry('c_ClaveProdServ', c.clave_prod_serv);
  if (!prodServ || !inForce(prodServ, ctx.day)) fail(`${at}.clave_prod_serv`, `${c.clave_prod_serv} is not in c_ClaveProdServ`, 'CFDI40162');
  else if (prodServ.complemento) fail(`${at}.clave_prod_serv`, `${c.clave_prod_serv} requires the complement "${prodServ.complemento}", which this service does not issue`, 'CFDI40163');
  if (!isValidKey('c_ClaveUnidad', c.clave_unidad, ctx.day)) fail(`${at}.clave_unidad`, `${c.clave_unidad} is not in c_ClaveUnidad`, 'CFDI40165');

  const cantidad = Dec.parse(c.cantidad);
  const valorUnitario = Dec.parse(c.valor_unitario);
  if (cantidad.isZero()) fail(`${at}.cantidad`, 'must be greater than 0', 'CFDI40167');
  if (valorUnitario.isZero() && ctx.tipo !== 'T') fail(`${at}.valor_unitario`, 'must be greater than 0 for I and E', 'CFDI40166');
  if (ctx.tipo === 'T') {
    // A Traslado has no comprobante-level Impuestos (CFDI40201), so its conceptos carry none, and no discounts.
    if (c.impuestos || (c.objeto_imp !== undefined && c.objeto_imp !== '01')) fail(`${at}.impuestos`, 'a Traslado carries no taxes: send objeto_imp 01 (or omit it) and no impuestos', 'CFDI40201');
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
    const choices = catalogRows('c_ObjetoImp').filter((r) => inForce(r, ctx.day)).map((r) => `${r.clave} (${r.descripcion!.replace(/\.$/, '')})`);
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
  const retenciones = retencionesIn.map((t, j) => prepareTaxLine(t, `${at}.impuestos.retenciones[${j}]`, 'retencion', TAX_CODES.retencion, ctx.day, fail, computed)!);

  let aCuentaTerceros: ConceptoModel['aCuentaTerceros'];
  if (c.a_cuenta_terceros) {
    const t = c.a_cuenta_terceros;
    const p = `${at}.a_cuenta_terceros`;
    const rfcIssue = rfcProblem(t.rfc);
    if (rfcIssue) fail(`${p}.rfc`, rfcIssue, 'CFDI40187');
    else ctx.warn(rfcCheckDigitWarning(t.rfc, `${p}.rfc`));
    if (t.rfc === ctx.emisorRfc || t.rfc === ctx.receptorRfc) fail(`${p}.rfc`, 'must differ from the issuer and the receptor RFC', 'CFDI40188');
    if (!isValidKey('c_RegimenFiscal', t.regimen_fiscal, ctx.day)) fail(`${p}.regimen_fiscal`, 'is not in c_RegimenFiscal', 'CFDI40190');
    if (!/^\d{5}$/.test(t.domicilio_fiscal) || !isValidKey('c_CodigoPostal', t.domicilio_fiscal, ctx.day)) fail(`${p}.domicilio_fiscal`, 'is not in c_CodigoPostal', 'CFDI40192');
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
  traslado: { base: 'CFDI40174', impuesto: 'CFDI40175', tasa: 'CFDI40179', importe: 'CFDI40180', exentoRetencion: 'CFDI40184', exentoBare: 'CFDI40177', required: 'CFDI40178' },
  retencion: { base: 'CFDI40181', impuesto: 'CFDI40182', tasa: 'CFDI40185', importe: 'CFDI40186', exentoRetencion: 'CFDI40184', exentoBare: 'CFDI40177', required: 'CFDI40185' },
};

/** Comprobante-level Impuestos: one traslado per (impuesto, factor, tasa), one retencion per impuesto. */
function summarizeTaxes(conceptos: ConceptoModel[], decimals: number): ComprobanteModel['impuestos'] {
  const retenciones = new Map<string, Dec[]>();
  for (const r of conceptos.flatMap((c) => c.retenciones)) retenciones.set(r.impuesto, [...(retenciones.get(r.impuesto) ?? []), r.importe!]);
  const traslados = sumByTax(conceptos.flatMap((c) => c.traslados));
  if (traslados.length === 0 && retenciones.size === 0) return undefined;
  const trasladoLines: TaxLine[] = traslados
    .sort((a, b) => a.impuesto.localeCompare(b.impuesto))
    .map((t) => ({ ...t, base: t.base.round(decimals), importe: t.tipoFactor === 'Exento' ? undefined : (t.importe ?? Dec.ZERO).round(decimals) }));
  const retencionLines = [...retenciones.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([impuesto, importes]) => ({ impuesto, importe: sum(importes).round(decimals) }));
  const nonExempt = trasladoLines.filter((t) => t.tipoFactor !== 'Exento');
  return {
    traslados: trasladoLines,
    retenciones: retencionLines,
    totalTrasladados: nonExempt.length ? sum(nonExempt.map((t) => t.importe!)).round(decimals) : undefined,
    totalRetenidos: retencionLines.length ? sum(retencionLines.map((r) => r.importe)).round(decimals) : undefined,
  };
}


import { catalogEntry, isValidKey, inForce } from '../../catalogs/index.ts';
import { Dec } from '../decimal.ts';
import type { ComprobanteInput, Fail } from '../input.ts';
import type { ComprobanteModel } from '../model.ts';
import { localDateTime } from '../time.ts';

/**
 * The attributes of cfdi:Comprobante itself, one step each (prepare.ts runs them in this order): Fecha, Moneda and
 * TipoCambio, the payment terms, Exportacion, the issuer's place and régimen, InformacionGlobal.
 */

const MAX_AGE_MS = 72 * 3600 * 1000;

/** Fields a voucher type must not carry, with the rule that says so. */
function forbidder(req: ComprobanteInput, fail: Fail) {
  return (field: keyof ComprobanteInput, why: string, rule?: string) => {
    if (req[field] !== undefined) fail(field, `must not be sent for tipo ${req.tipo}: ${why}`, rule);
  };
}

/** Fecha: the local time of the place of issue (CFDI40101), within the PAC's 72-hour window, never ahead. */
export function prepareFecha(req: ComprobanteInput, now: Date, lugar: string, fail: Fail): string {
  const nowLocal = localDateTime(now, lugar);
  const fecha = req.fecha ?? nowLocal;
  if (req.fecha) {
    if (req.fecha > nowLocal) fail('fecha', `is in the future (local time at ${lugar} is ${nowLocal})`, 'CFDI40101');
    else if (Date.parse(`${nowLocal}Z`) - Date.parse(`${req.fecha}Z`) > MAX_AGE_MS)
      fail('fecha', 'is more than 72 hours old: a PAC rejects it (401)', 'CFDI40101');
  }
  return fecha;
}

/** Moneda and TipoCambio (CFDI40113–40117). P and T carry no money (XXX); N is paid in MXN. */
export function prepareMoneda(req: ComprobanteInput, day: string, fail: Fail): { moneda: string; tipoCambio?: string; decimals: number } {
  const tipo = req.tipo;
  const forbid = forbidder(req, fail);
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
    if (req.tipo_cambio !== undefined && Dec.parse(req.tipo_cambio).cmp(Dec.parse('1')) !== 0)
      fail('tipo_cambio', 'must be 1 (or omitted) with moneda MXN', 'CFDI40114');
    tipoCambio = req.tipo_cambio !== undefined ? '1' : undefined;
  } else if (req.tipo_cambio === undefined) {
    fail('tipo_cambio', `is required with moneda ${moneda}`, 'CFDI40115');
  } else if (Dec.parse(req.tipo_cambio).isZero()) {
    fail('tipo_cambio', 'must be greater than 0', 'CFDI40117');
  } else {
    tipoCambio = req.tipo_cambio;
  }
  return { moneda, tipoCambio, decimals };
}

/** FormaPago / MetodoPago / CondicionesDePago (CFDI40103–40105, 40124, 40125): only I and E carry them; N is PUE. */
export function preparePaymentTerms(req: ComprobanteInput, day: string, fail: Fail, warnings: string[]): { formaPago?: string; metodoPago?: string } {
  const tipo = req.tipo;
  const forbid = forbidder(req, fail);
  let formaPago: string | undefined;
  let metodoPago: string | undefined;
  if (tipo === 'I' || tipo === 'E') {
    metodoPago = req.metodo_pago ?? 'PUE';
    if (!isValidKey('c_MetodoPago', metodoPago, day)) fail('metodo_pago', 'must be PUE or PPD (c_MetodoPago)', 'CFDI40124');
    formaPago = req.forma_pago ?? '99';
    // Sent or defaulted alike: PUE says it is paid, so the form of payment is known (Guía de llenado, FormaPago).
    if (metodoPago === 'PUE' && formaPago === '99') {
      const how = req.forma_pago === undefined ? 'defaulted to 99' : 'is 99';
      warnings.push(`forma_pago ${how} (Por definir); a PUE invoice should carry the form actually used`);
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
  return { formaPago, metodoPago };
}

/**
 * Exportacion (CFDI40122, 40123): 01 for P and N; 02 (definitive export) only with the Comercio Exterior complement,
 * whose own rules refuse it on other values (CCE145). 03 and 04 carry no complement (Anexo 20's c_Exportacion).
 */
export function prepareExportacion(req: ComprobanteInput, day: string, fail: Fail): string {
  const tipo = req.tipo;
  const exportacion = req.exportacion ?? '01';
  if (!isValidKey('c_Exportacion', exportacion, day)) fail('exportacion', `${exportacion} is not a c_Exportacion key`, 'CFDI40123');
  else if ((tipo === 'P' || tipo === 'N') && exportacion !== '01') fail('exportacion', `must be 01 for tipo ${tipo}`, tipo === 'P' ? 'CRP20102' : 'NOM3');
  else if (exportacion === '02' && req.comercio_exterior === undefined)
    fail('exportacion', '02 (definitive export) requires the Comercio Exterior complement: send comercio_exterior', 'CFDI40122');
  return exportacion;
}

/** The issuer's place of issue and régimen (CFDI40126, 40140), reported under the tenant's fields. */
export function checkEmisor(emisor: { regimenFiscal: string; codigoPostal: string }, day: string, fail: Fail): void {
  const lugar = emisor.codigoPostal;
  if (!isValidKey('c_CodigoPostal', lugar, day)) fail('tenant.codigo_postal', `${lugar} (LugarExpedicion) is not in c_CodigoPostal`, 'CFDI40126');
  if (!isValidKey('c_RegimenFiscal', emisor.regimenFiscal, day)) fail('tenant.regimen_fiscal', 'is not in c_RegimenFiscal', 'CFDI40140');
}

/** InformacionGlobal (CFDI40130–40136): invoices to the general public only. */
export function prepareInformacionGlobal(
  req: ComprobanteInput,
  ctx: { day: string; regimenFiscal: string; receptor: { rfc: string; nombre: string } },
  fail: Fail,
): ComprobanteModel['informacionGlobal'] {
  const { tipo } = req;
  const { day, receptor } = ctx;
  const publico = receptor.rfc === 'XAXX010101000' && receptor.nombre === 'PUBLICO EN GENERAL';
  let informacionGlobal: ComprobanteModel['informacionGlobal'];
  if (req.informacion_global && tipo !== 'I' && tipo !== 'E') {
    fail('informacion_global', `must not be sent for tipo ${tipo}: it is for global invoices to the general public`, tipo === 'N' ? 'NOM4' : 'CFDI40130');
  } else if (req.informacion_global) {
    const g = req.informacion_global;
    if (!isValidKey('c_Periodicidad', g.periodicidad, day)) fail('informacion_global.periodicidad', 'is not a c_Periodicidad key', 'CFDI40131');
    else if (g.periodicidad === '05' && ctx.regimenFiscal !== '621')
      fail('informacion_global.periodicidad', '05 (bimestral) is only for issuers in régimen 621', 'CFDI40132');
    if (!isValidKey('c_Meses', g.meses, day)) fail('informacion_global.meses', 'is not a c_Meses key', 'CFDI40133');
    else if (g.periodicidad === '05' && !(g.meses >= '13' && g.meses <= '18'))
      fail('informacion_global.meses', 'must be 13–18 for a bimonthly period', 'CFDI40135');
    else if (g.periodicidad !== '05' && g.meses > '12') fail('informacion_global.meses', 'must be 01–12 unless periodicidad is 05', 'CFDI40134');
    const year = Number(day.slice(0, 4));
    if (!/^\d{4}$/.test(g.anio) || Number(g.anio) > year || Number(g.anio) < year - 5)
      fail('informacion_global.anio', `must be between ${year - 5} and ${year}`, 'CFDI40136');
    if (!publico) fail('informacion_global', 'only applies to invoices to PUBLICO EN GENERAL (XAXX010101000)', 'CFDI40130');
    informacionGlobal = { periodicidad: g.periodicidad, meses: g.meses, anio: g.anio };
  } else if (publico && tipo === 'I') {
    fail('informacion_global', 'is required for an Ingreso to XAXX010101000 named PUBLICO EN GENERAL', 'CFDI40130');
  }
  return informacionGlobal;
}

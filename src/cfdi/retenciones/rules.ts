import { catalogEntry, inForce, isValidKey, personaOf } from '../../catalogs/index.ts';
import { Dec, sum } from '../decimal.ts';
import type { Fail } from '../input.ts';
import { T_CURP, UUID } from '../patterns.ts';
import { rfcProblem } from '../rules/rfc.ts';
import { localDateTime } from '../time.ts';
import { money, fraction } from './amounts.ts';
import { C_CVE_RETENC, C_EJERCICIO, C_PERIODO, C_TIPO_PAGO_RET } from './catalogs.ts';
import type { RetencionInput } from './input.ts';
import type { ImpRetenidoModel, PeriodoModel, ReceptorRetencionModel, TotalesModel } from './model.ts';

/**
 * The rules of SAT's Matriz de errores of Retenciones 2.0 that a request can break, one step each (./prepare.ts runs
 * them in document order), each failure with its code (Reten201xx). What the schema alone refuses (lengths, patterns
 * of tdCFDI.xsd) is refused too, without a code. Codes the engine cannot check: Reten20101/20102 (seal and certificate,
 * ours by construction), Reten20110 (the name in SAT's records), Reten20113/20116/20120 (SAT's list of RFCs).
 */

const FECHA_H = /^(20[1-9][0-9])-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9])$/;
const FOLIO_INT = /^[0-9a-zA-Z]{1,20}$/;
const IMPUESTOS = new Set(['001', '002', '003']);

/** The issuer's place and régimen (the tenant's, as for a CFDI): Reten20104, Reten20111, Reten20112. */
export function checkEmisor(emisor: { rfc: string; regimenFiscal: string; codigoPostal: string }, day: string, fail: Fail): void {
  if (!isValidKey('c_CodigoPostal', emisor.codigoPostal, day))
    fail('tenant.codigo_postal', `${emisor.codigoPostal} (LugarExpRetenc) is not in c_CodigoPostal`, 'Reten20104');
  const row = catalogEntry('c_RegimenFiscal', emisor.regimenFiscal);
  if (!row || !inForce(row, day)) fail('tenant.regimen_fiscal', `${emisor.regimenFiscal} (RegimenFiscalE) is not in c_RegimenFiscal`, 'Reten20111');
  else if (row[personaOf(emisor.rfc) === 'moral' ? 'aplica_moral' : 'aplica_fisica'] !== '1')
    fail('tenant.regimen_fiscal', `${emisor.regimenFiscal} (${row.descripcion}) does not apply to a persona ${personaOf(emisor.rfc)}`, 'Reten20112');
}

/** FechaExp: as sent (t_FechaH, a real date, Reten20103), else the issuer's local time now. */
export function prepareFechaExp(sent: string | undefined, now: Date, lugar: string, fail: Fail): string {
  if (sent === undefined) return localDateTime(now, lugar);
  const m = FECHA_H.exec(sent);
  const real = m && new Date(`${sent.slice(0, 10)}T00:00:00Z`).toISOString().slice(0, 10) === sent.slice(0, 10);
  if (!real) fail('fecha_exp', `must be a date and time YYYY-MM-DDThh:mm:ss, not ${JSON.stringify(sent)}`, 'Reten20103');
  return sent;
}

/** CveRetenc (Reten20105) and DescRetenc, required for 25 "otro tipo de retenciones" (Reten20106). */
export function checkClave(req: Pick<RetencionInput, 'cve_retenc' | 'desc_retenc'>, fail: Fail): void {
  if (!C_CVE_RETENC.has(req.cve_retenc)) fail('cve_retenc', `${req.cve_retenc} is not a key of c_CveRetenc (01–28)`, 'Reten20105');
  if (req.cve_retenc === '25' && (req.desc_retenc === undefined || req.desc_retenc.trim() === ''))
    fail('desc_retenc', 'is required with cve_retenc 25 (otro tipo de retenciones)', 'Reten20106');
  if (req.desc_retenc !== undefined && (req.desc_retenc.trim() === '' || req.desc_retenc.length > 100)) fail('desc_retenc', 'must be 1 to 100 characters');
}

export function checkFolioInt(folioInt: string | undefined, fail: Fail): void {
  if (folioInt !== undefined && !FOLIO_INT.test(folioInt)) fail('folio_int', 'must be 1 to 20 letters and digits (FolioInt)');
}

/** CfdiRetenRelacionados: TipoRelacion of c_TipoRelacion (Reten20109), a UUID. */
export function prepareRelacionado(r: RetencionInput['cfdi_reten_relacionados'], day: string, fail: Fail): { tipoRelacion: string; uuid: string } | undefined {
  if (!r) return undefined;
  if (!isValidKey('c_TipoRelacion', r.tipo_relacion, day))
    fail('cfdi_reten_relacionados.tipo_relacion', `${r.tipo_relacion} is not a key of c_TipoRelacion`, 'Reten20109');
  if (!UUID.test(r.uuid)) fail('cfdi_reten_relacionados.uuid', 'is not a folio fiscal (UUID)');
  return { tipoRelacion: r.tipo_relacion, uuid: r.uuid.toUpperCase() };
}

/** Receptor Nacional (RFC, name, CURP of a persona física: Reten20117, postal code: Reten20118) or Extranjero. */
export function prepareReceptor(r: RetencionInput['receptor'], day: string, fail: Fail): ReceptorRetencionModel {
  const at = (name: string) => `receptor.${name}`;
  const nombre = (max: number) => {
    if (r.nombre.trim() === '' || r.nombre.length > max) fail(at('nombre'), `must be 1 to ${max} characters`);
  };
  const forbid = (name: 'rfc' | 'curp' | 'domicilio_fiscal' | 'num_reg_id_trib', why: string) => {
    if (r[name] !== undefined) fail(at(name), `must not be sent: ${why}`);
  };
  if (r.nacionalidad === 'Extranjero') {
    nombre(300);
    forbid('rfc', 'a receptor Extranjero has no RFC');
    forbid('curp', 'a receptor Extranjero has no CURP');
    forbid('domicilio_fiscal', 'a receptor Extranjero has no Mexican postal code');
    if (r.num_reg_id_trib !== undefined && (r.num_reg_id_trib.trim() === '' || r.num_reg_id_trib.length > 20))
      fail(at('num_reg_id_trib'), 'must be 1 to 20 characters');
    return { nacionalidad: 'Extranjero', nombre: r.nombre, numRegIdTrib: r.num_reg_id_trib };
  }
  if (r.nacionalidad !== 'Nacional') fail(at('nacionalidad'), 'must be Nacional or Extranjero');
  nombre(254);
  forbid('num_reg_id_trib', 'it is for a receptor Extranjero');
  const rfc = r.rfc ?? '';
  const rfcIssue = r.rfc === undefined ? 'is required for a receptor Nacional' : rfcProblem(rfc);
  if (rfcIssue) fail(at('rfc'), rfcIssue);
  if (r.curp !== undefined) {
    if (!T_CURP.test(r.curp)) fail(at('curp'), 'is not a valid CURP');
    else if (!rfcIssue && personaOf(rfc) === 'moral') fail(at('rfc'), `${rfc} is a persona moral's RFC: a CURP is only for a persona física`, 'Reten20117');
  }
  const cp = r.domicilio_fiscal;
  if (cp === undefined) fail(at('domicilio_fiscal'), 'is required for a receptor Nacional (its postal code)');
  else if (!isValidKey('c_CodigoPostal', cp, day)) fail(at('domicilio_fiscal'), `${cp} is not in c_CodigoPostal`, 'Reten20118');
  return { nacionalidad: 'Nacional', rfc, nombre: r.nombre, curp: r.curp, domicilioFiscal: cp ?? '' };
}

/** Periodo: months of c_Periodo (Reten20121, Reten20123), MesIni ≤ MesFin (Reten20122), Ejercicio (Reten20125, Reten20126). */
export function preparePeriodo(p: RetencionInput['periodo'], fechaExp: string, fail: Fail): PeriodoModel {
  if (!C_PERIODO.has(p.mes_ini)) fail('periodo.mes_ini', `${p.mes_ini} is not a key of c_Periodo (01–12)`, 'Reten20121');
  if (!C_PERIODO.has(p.mes_fin)) fail('periodo.mes_fin', `${p.mes_fin} is not a key of c_Periodo (01–12)`, 'Reten20123');
  else if (C_PERIODO.has(p.mes_ini) && p.mes_ini > p.mes_fin) fail('periodo.mes_ini', `${p.mes_ini} is after mes_fin ${p.mes_fin}`, 'Reten20122');
  // A FechaExp refused already (Reten20103) has no year to compare with.
  const year = FECHA_H.test(fechaExp) ? Number(fechaExp.slice(0, 4)) : undefined;
  if (!C_EJERCICIO.has(p.ejercicio)) fail('periodo.ejercicio', `${p.ejercicio} is not a key of c_Ejercicio (2019–2027)`, 'Reten20125');
  else if (year !== undefined && Number(p.ejercicio) !== year && Number(p.ejercicio) !== year - 1)
    fail('periodo.ejercicio', `must be the year of fecha_exp (${year}) or the one before, not ${p.ejercicio}`, 'Reten20126');
  return { mesIni: p.mes_ini, mesFin: p.mes_fin, ejercicio: p.ejercicio };
}

/** One ImpRetenidos: MontoRet as sent, or BaseRet × tasa (two decimals, half away from zero); checked when both. */
function prepareImpRetenido(t: NonNullable<RetencionInput['impuestos_retenidos']>[number], path: string, fail: Fail): ImpRetenidoModel | undefined {
  const at = (name: string) => `${path}.${name}`;
  if (t.impuesto_ret !== undefined && !IMPUESTOS.has(t.impuesto_ret))
    fail(at('impuesto_ret'), `${t.impuesto_ret} is not a key of c_Impuesto (001 ISR, 002 IVA, 003 IEPS)`);
  if (!C_TIPO_PAGO_RET.has(t.tipo_pago_ret)) fail(at('tipo_pago_ret'), `${t.tipo_pago_ret} is not a key of c_TipoPagoRet (01–04)`);
  const baseRet = money(at('base_ret'), t.base_ret, fail);
  const tasa = fraction(at('tasa'), t.tasa, fail);
  const sent = money(at('monto_ret'), t.monto_ret, fail);
  if (tasa && !baseRet && t.base_ret === undefined) fail(at('base_ret'), 'is required with tasa (MontoRet = BaseRet × tasa)');
  const computed = tasa && baseRet ? baseRet.mul(tasa).round(2) : undefined;
  if (sent && computed && sent.cmp(computed) !== 0) fail(at('monto_ret'), `must be base_ret × tasa = ${computed.toString()}, not ${sent.toString()}`);
  const montoRet = sent ?? computed;
  if (!montoRet) {
    if (t.monto_ret === undefined && t.tasa === undefined) fail(at('monto_ret'), 'is required unless base_ret and tasa are sent');
    return undefined;
  }
  return { baseRet, impuestoRet: t.impuesto_ret, montoRet, tipoPagoRet: t.tipo_pago_ret };
}

/**
 * Totales: MontoTotExent = MontoTotOperacion − MontoTotGrav unless sent (then Reten20127), each within the operation
 * (Reten20128, Reten20129); MontoTotRet = Σ MontoRet (Reten20131, and Reten20130 for an amount without taxes);
 * UtilidadBimestral and ISRCorrespondiente greater than zero when sent (Reten20132, Reten20133).
 */
export function prepareTotales(req: RetencionInput, fail: Fail): TotalesModel {
  const t = req.totales;
  const f = (name: string) => `totales.${name}`;
  const impRetenidos = (req.impuestos_retenidos ?? []).flatMap((r, i) => prepareImpRetenido(r, `impuestos_retenidos[${i}]`, fail) ?? []);
  const zero = Dec.ZERO.round(2);
  const operacionSent = money(f('monto_tot_operacion'), t.monto_tot_operacion, fail);
  const gravSent = money(f('monto_tot_grav'), t.monto_tot_grav, fail);
  const operacion = operacionSent ?? zero;
  const grav = gravSent ?? zero;
  // An amount already refused is not compared: one wrong field is one problem.
  const comparable = operacionSent !== undefined && gravSent !== undefined;
  if (comparable && grav.cmp(operacion) > 0)
    fail(f('monto_tot_grav'), `${grav.toString()} is more than monto_tot_operacion ${operacion.toString()}`, 'Reten20128');
  let exent = money(f('monto_tot_exent'), t.monto_tot_exent, fail);
  if (exent && comparable) {
    if (exent.cmp(operacion) > 0) fail(f('monto_tot_exent'), `${exent.toString()} is more than monto_tot_operacion ${operacion.toString()}`, 'Reten20129');
    else if (grav.add(exent).cmp(operacion) !== 0)
      fail(f('monto_tot_operacion'), `must be monto_tot_grav + monto_tot_exent = ${grav.add(exent).toString()}, not ${operacion.toString()}`, 'Reten20127');
  }
  exent ??= grav.cmp(operacion) > 0 ? zero : operacion.sub(grav);
  const montoTotRet = sum(impRetenidos.map((r) => r.montoRet)).round(2);
  const sentRet = money(f('monto_tot_ret'), t.monto_tot_ret, fail);
  if (sentRet && !sentRet.isZero() && (req.impuestos_retenidos ?? []).length === 0)
    fail('impuestos_retenidos', `are required: monto_tot_ret is ${sentRet.toString()} and no tax withheld is listed`, 'Reten20130');
  else if (sentRet && sentRet.cmp(montoTotRet) !== 0)
    fail(f('monto_tot_ret'), `must be the sum of impuestos_retenidos[].monto_ret, ${montoTotRet.toString()}, not ${sentRet.toString()}`, 'Reten20131');
  const positive = (name: string, text: string | undefined, rule: string) => {
    const d = money(f(name), text, fail);
    if (d?.isZero()) fail(f(name), 'must be greater than zero', rule);
    return d;
  };
  return {
    montoTotOperacion: operacion,
    montoTotGrav: grav,
    montoTotExent: exent,
    montoTotRet,
    utilidadBimestral: positive('utilidad_bimestral', t.utilidad_bimestral, 'Reten20132'),
    isrCorrespondiente: positive('isr_correspondiente', t.isr_correspondiente, 'Reten20133'),
    impRetenidos,
  };
}

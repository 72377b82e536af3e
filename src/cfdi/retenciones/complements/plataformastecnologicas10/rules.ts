import { Dec, sum } from '../../../decimal.ts';
import type { Fail } from '../../../input.ts';
import { T_RFC } from '../../../patterns.ts';
import { money } from '../../amounts.ts';
import type { RetencionFacts } from '../../model.ts';
import type { PlataformasTecnologicasInput } from './input.ts';
import type { PlataformasTecnologicasModel, ServicioModel } from './model.ts';

/**
 * Servicios de Plataformas Tecnológicas 1.0: request → model with every total computed. Pure.
 *
 * NumServ counts the services; MonTotServSIVA adds their PrecioServSinIVA; TotalIVATrasladado their IVA (impuesto 02 of
 * catRetenciones' c_TipoImpuesto); TotalIVARetenido and TotalISRRetenido are the document's ImpRetenidos of IVA (002)
 * and ISR (001); DifIVAEntregadoPrestServ = TotalIVATrasladado − TotalIVARetenido; MonTotalporUsoPlataforma adds the
 * platform's fees; MonTotalContribucionGubernamental the contributions, when a service has one. Catalogs are those of
 * CatPlataformasTecnologicas.xsd of 2026-01-14. SAT's matrix codes for this complement are not in the project's
 * sources, so its checks name the field and the issue without a code.
 */
const FORMA_PAGO_SERV = new Set(['01', '02', '03', '04', '05', '06', '07', '08', '09']);
const TIPO_DE_SERV = new Set(['01', '02', '03', '04', '05', '06', '07', '08', '09', '11']);
const SUB_TIPO_SERV = new Set(['01', '02', '03', '04', '08', '09']);
const TASA_CUOTA = new Set(['0.160000', '0.080000', '0.000000', '0.500000']);
const TIPO_IMPUESTO = new Set(['01', '02', '03']);
const PERIODICIDAD = new Set(['01', '02', '03', '04', '05']);
const ENTIDADES = new Set(Array.from({ length: 32 }, (_, i) => String(i + 1).padStart(2, '0')));
const FECHA = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const IVA = '002';
const ISR = '001';

export function preparePlataformas(req: PlataformasTecnologicasInput, facts: RetencionFacts, fail: Fail): PlataformasTecnologicasModel {
  const at = (path: string) => (path ? `${facts.field}.${path}` : facts.field);
  if (!PERIODICIDAD.has(req.periodicidad)) fail(at('periodicidad'), `${req.periodicidad} is not a key of c_Periodicidad (01–05)`);
  if (req.servicios.length === 0) fail(at('servicios'), 'needs at least one service (DetallesDelServicio)');
  const servicios = req.servicios.map((s, i) => prepareServicio(s, `servicios[${i}]`, facts, (p, issue) => fail(at(p), issue)));

  const retenido = (impuesto: string) => sum(facts.totales.impRetenidos.filter((r) => r.impuestoRet === impuesto).map((r) => r.montoRet)).round(2);
  const totalIvaTrasladado = sum(servicios.flatMap((s) => (s.traslado?.impuesto === '02' ? [s.traslado.importe] : []))).round(2);
  const totalIvaRetenido = retenido(IVA);
  const difIvaEntregadoPrestServ = totalIvaTrasladado.sub(totalIvaRetenido);
  if (difIvaEntregadoPrestServ.isNegative())
    fail(
      at('servicios'),
      `the IVA withheld (${totalIvaRetenido.toString()}, impuestos_retenidos with impuesto_ret 002) exceeds the IVA of the services (${totalIvaTrasladado.toString()}): DifIVAEntregadoPrestServ cannot be negative`,
    );
  const contribuciones = servicios.flatMap((s) => (s.contribucion ? [s.contribucion.impContrib] : []));
  return {
    periodicidad: req.periodicidad,
    numServ: servicios.length,
    monTotServSiva: sum(servicios.map((s) => s.precioServSinIva)).round(2),
    totalIvaTrasladado,
    totalIvaRetenido,
    totalIsrRetenido: retenido(ISR),
    difIvaEntregadoPrestServ: difIvaEntregadoPrestServ.isNegative() ? Dec.ZERO.round(2) : difIvaEntregadoPrestServ,
    monTotalporUsoPlataforma: sum(servicios.flatMap((s) => (s.comision ? [s.comision.importe] : []))).round(2),
    monTotalContribucionGubernamental: contribuciones.length ? sum(contribuciones).round(2) : undefined,
    servicios,
  };
}

function prepareServicio(s: PlataformasTecnologicasInput['servicios'][number], path: string, facts: RetencionFacts, fail: Fail): ServicioModel {
  const f = (name: string) => `${path}.${name}`;
  if (!FORMA_PAGO_SERV.has(s.forma_pago_serv)) fail(f('forma_pago_serv'), `${s.forma_pago_serv} is not a key of c_FormaPagoServ (01–09)`);
  if (!TIPO_DE_SERV.has(s.tipo_de_serv)) fail(f('tipo_de_serv'), `${s.tipo_de_serv} is not a key of c_TipoDeServ in force (01–09, 11)`);
  if (s.sub_tip_serv !== undefined && !SUB_TIPO_SERV.has(s.sub_tip_serv))
    fail(f('sub_tip_serv'), `${s.sub_tip_serv} is not a key of c_SubTipoServ in force (01–04, 08, 09)`);
  if (s.rfc_tercero_autorizado !== undefined && (!T_RFC.test(s.rfc_tercero_autorizado) || s.rfc_tercero_autorizado.length !== 13))
    fail(f('rfc_tercero_autorizado'), 'must be the RFC of a persona física (13 characters, t_RFC_PF)');
  if (!FECHA.test(s.fecha_serv)) fail(f('fecha_serv'), `must be a date YYYY-MM-DD, not ${JSON.stringify(s.fecha_serv)}`);
  else if (!inPeriodo(s.fecha_serv, facts))
    fail(f('fecha_serv'), `${s.fecha_serv} is outside the document's Periodo (${facts.periodo.mesIni}–${facts.periodo.mesFin} of ${facts.periodo.ejercicio})`);
  const precio = money(f('precio_serv_sin_iva'), s.precio_serv_sin_iva, fail) ?? Dec.ZERO.round(2);

  let traslado: ServicioModel['traslado'];
  if (s.impuestos_trasladados) {
    const t = s.impuestos_trasladados;
    const impuesto = t.impuesto ?? '02';
    if (!TIPO_IMPUESTO.has(impuesto)) fail(f('impuestos_trasladados.impuesto'), `${impuesto} is not a key of c_TipoImpuesto (01 ISR, 02 IVA, 03 IEPS)`);
    const tasa = money(f('impuestos_trasladados.tasa_cuota'), t.tasa_cuota, fail, 6);
    if (tasa && !TASA_CUOTA.has(tasa.round(6).toString()))
      fail(f('impuestos_trasladados.tasa_cuota'), `${t.tasa_cuota} is not a key of c_TasaCuota (0.160000, 0.080000, 0.000000, 0.500000)`);
    const base = t.base === undefined ? precio : money(f('impuestos_trasladados.base'), t.base, fail, 6);
    if (base?.isZero()) fail(f('impuestos_trasladados.base'), 'must be greater than 0');
    if (tasa && base) traslado = { base, impuesto, tasaCuota: tasa.round(6), importe: base.mul(tasa).round(2) };
  }

  let contribucion: ServicioModel['contribucion'];
  if (s.contribucion_gubernamental) {
    const c = s.contribucion_gubernamental;
    if (!ENTIDADES.has(c.entidad_donde_paga_la_contribucion))
      fail(
        f('contribucion_gubernamental.entidad_donde_paga_la_contribucion'),
        `${c.entidad_donde_paga_la_contribucion} is not a key of c_EntidadesFederativas (01–32)`,
      );
    const imp = money(f('contribucion_gubernamental.imp_contrib'), c.imp_contrib, fail);
    if (imp) contribucion = { impContrib: imp, entidad: c.entidad_donde_paga_la_contribucion };
  }

  let comision: ServicioModel['comision'];
  if (s.comision_del_servicio) {
    const c = s.comision_del_servicio;
    const base = money(f('comision_del_servicio.base'), c.base, fail, 6);
    const porcentaje = money(f('comision_del_servicio.porcentaje'), c.porcentaje, fail, 3);
    if (porcentaje && (porcentaje.cmp(Dec.parse('0.001')) < 0 || porcentaje.cmp(Dec.parse('1')) > 0))
      fail(f('comision_del_servicio.porcentaje'), `is a fraction between 0.001 and 1.0, not ${porcentaje.toString()}`);
    const sent = money(f('comision_del_servicio.importe'), c.importe, fail);
    const computed = base && porcentaje ? base.mul(porcentaje).round(2) : undefined;
    if (sent && computed && sent.cmp(computed) !== 0)
      fail(f('comision_del_servicio.importe'), `must be base × porcentaje = ${computed.toString()}, not ${sent.toString()}`);
    const importe = sent ?? computed;
    if (!importe) fail(f('comision_del_servicio.importe'), 'is required unless base and porcentaje are both sent');
    else comision = { base, porcentaje: porcentaje?.round(3), importe };
  }
  return {
    formaPagoServ: s.forma_pago_serv,
    tipoDeServ: s.tipo_de_serv,
    subTipServ: s.sub_tip_serv,
    rfcTerceroAutorizado: s.rfc_tercero_autorizado,
    fechaServ: s.fecha_serv,
    precioServSinIva: precio,
    traslado,
    contribucion,
    comision,
  };
}

const inPeriodo = (fecha: string, { periodo }: RetencionFacts): boolean => {
  const [year, month] = [fecha.slice(0, 4), fecha.slice(5, 7)];
  return year === periodo.ejercicio && month >= periodo.mesIni && month <= periodo.mesFin;
};

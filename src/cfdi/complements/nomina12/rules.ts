import { catalogEntry, inForce, type CatalogName } from '../../../catalogs/index.ts';
import { Dec, sum } from '../../decimal.ts';
import type { Fail } from '../../input.ts';
import type { NominaInput } from './input.ts';
import type { NominaContext, NominaModel, OtroPagoModel, PercepcionesModel, PercepcionModel } from './model.ts';

/**
 * Complemento Nómina 1.2 (rev. D): request → checked model (the node is in xml.ts). Pure. Every total is computed
 * here from the lines (docs/sat-rules.md §9), so the totals rules (NOM36–NOM40, NOM69–NOM74, NOM77, NOM91, NOM92) hold by
 * construction. Rule codes: the Matriz de errores de Nómina 1.2 numbering (Rev. D/E agree on these; complement rules
 * NOM30–NOM108). Checks with no
 * matrix code (XSD facets, our own consistency checks) carry none.
 */

const SEPARACION = new Set(['022', '023', '025']);
const JUBILACION = new Set(['039', '044']);
/** TipoContrato 01–08 are labour relations with IMSS registration (NOM42, NOM57). */
const laboral = (tipoContrato: string) => tipoContrato >= '01' && tipoContrato <= '08';

/** Field paths as the API names them: the request's `nomina` member. */
const at = (path: string) => `nomina.${path}`;
const money = (v: string) => Dec.parse(v).round(2);
const optMoney = (v: string | undefined) => (v === undefined ? undefined : money(v));
const ZERO = Dec.parse('0.00');
const isPositive = (d: Dec) => d.cmp(Dec.ZERO) > 0;

const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

/** Antigüedad in the weeks form: complete weeks in the inclusive span, the largest value NOM54 accepts. */
export const antiguedadSemanas = (inicio: string, fin: string) => `P${Math.floor((daysBetween(inicio, fin) + 1) / 7)}W`;

/** CLABE control digit: weights 3, 7, 1 over the first 17 digits, each product mod 10 (Banxico). */
export function clabeValida(clabe: string): boolean {
  if (!/^\d{18}$/.test(clabe)) return false;
  let total = 0;
  for (let i = 0; i < 17; i++) total += (Number(clabe[i]) * [3, 7, 1][i % 3]!) % 10;
  return (10 - (total % 10)) % 10 === Number(clabe[17]);
}

/**
 * Checks the request against the matrix rules it can be judged on (catalogs in force on the CFDI day) and builds
 * the model. Problems go to `fail`, all of them; the model is returned even then (the caller decides from its
 * list), so undefined is reserved for a request it cannot read at all.
 */
export function prepareNomina(req: NominaInput, ctx: NominaContext, fail: Fail): NominaModel | undefined {
  const day = ctx.fecha.slice(0, 10);
  const valid = (name: CatalogName, key: string) => {
    const row = catalogEntry(name, key);
    return row !== undefined && inForce(row, day);
  };
  /** Reports `key` unless it is in force in the catalog; true when it is. */
  const catalog = (path: string, name: CatalogName, key: string, rule: string) => {
    if (valid(name, key)) return true;
    fail(at(path), `${key} is not a ${name} key in force on ${day}`, rule);
    return false;
  };
  const r = req.receptor;

  // Nomina attributes (NOM32–NOM35).
  if (catalog('tipo_nomina', 'c_TipoNomina', req.tipo_nomina, 'NOM32')) {
    if (req.tipo_nomina === 'O' && r.periodicidad_pago === '99')
      fail(at('receptor.periodicidad_pago'), 'must not be 99 on an ordinary payroll (tipo_nomina O)', 'NOM33');
    if (req.tipo_nomina === 'E' && r.periodicidad_pago !== '99')
      fail(at('receptor.periodicidad_pago'), 'must be 99 (Otra periodicidad) on an extraordinary payroll (tipo_nomina E)', 'NOM34');
  }
  if (req.fecha_inicial_pago > req.fecha_final_pago) fail(at('fecha_inicial_pago'), 'must not be after fecha_final_pago', 'NOM35');
  const numDiasPagados = Dec.parse(req.num_dias_pagados).round(3);
  if (!isPositive(numDiasPagados)) fail(at('num_dias_pagados'), 'must be greater than 0');
  if (!req.percepciones && !req.otros_pagos) fail(at('percepciones'), 'a payroll needs percepciones, otros_pagos or both', 'NOM31');

  // Emisor: CURP by persona type (NOM5, NOM6); RegistroPatronal by TipoContrato (NOM42, NOM43); SNCF (NOM47–NOM49).
  const e = req.emisor;
  if (ctx.emisorRfc.length === 13 && !e?.curp) fail(at('emisor.curp'), 'is required when the issuer is a persona física (13-character RFC)', 'NOM6');
  if (ctx.emisorRfc.length === 12 && e?.curp) fail(at('emisor.curp'), 'must not be sent when the issuer is a persona moral (12-character RFC)', 'NOM5');
  const contratoOk = valid('c_TipoContrato', r.tipo_contrato);
  if (contratoOk && laboral(r.tipo_contrato) && !e?.registro_patronal)
    fail(at('emisor.registro_patronal'), `is required with tipo_contrato ${r.tipo_contrato} (01–08)`, 'NOM42');
  if (contratoOk && !laboral(r.tipo_contrato) && e?.registro_patronal)
    fail(at('emisor.registro_patronal'), `must not be sent with tipo_contrato ${r.tipo_contrato} (09, 10, 99)`, 'NOM43');
  const sncf = e?.entidad_sncf;
  if (sncf && catalog('emisor.entidad_sncf.origen_recurso', 'c_OrigenRecurso', sncf.origen_recurso, 'NOM47')) {
    if (sncf.origen_recurso === 'IM' && sncf.monto_recurso_propio === undefined)
      fail(at('emisor.entidad_sncf.monto_recurso_propio'), 'is required with origen_recurso IM (ingresos mixtos)', 'NOM48');
    if (sncf.origen_recurso !== 'IM' && sncf.monto_recurso_propio !== undefined)
      fail(at('emisor.entidad_sncf.monto_recurso_propio'), 'is only sent with origen_recurso IM (ingresos mixtos)', 'NOM49');
  }

  // Receptor catalogs (NOM51, NOM52, NOM56, NOM59–NOM61, NOM66) and the contract/regime pairing (NOM57, NOM58).
  catalog('receptor.tipo_contrato', 'c_TipoContrato', r.tipo_contrato, 'NOM51');
  if (r.tipo_jornada !== undefined) catalog('receptor.tipo_jornada', 'c_TipoJornada', r.tipo_jornada, 'NOM52');
  if (catalog('receptor.tipo_regimen', 'c_TipoRegimen', r.tipo_regimen, 'NOM56') && contratoOk) {
    if (laboral(r.tipo_contrato) && !['02', '03', '04'].includes(r.tipo_regimen))
      fail(at('receptor.tipo_regimen'), `must be 02, 03 or 04 with tipo_contrato ${r.tipo_contrato} (01–08)`, 'NOM57');
    if (!laboral(r.tipo_contrato) && r.tipo_regimen < '05')
      fail(at('receptor.tipo_regimen'), `must be 05 to 99 with tipo_contrato ${r.tipo_contrato} (09 or above)`, 'NOM58');
  }
  if (r.riesgo_puesto !== undefined) catalog('receptor.riesgo_puesto', 'c_RiesgoPuesto', r.riesgo_puesto, 'NOM59');
  catalog('receptor.periodicidad_pago', 'c_PeriodicidadPago', r.periodicidad_pago, 'NOM60');
  if (r.banco !== undefined) catalog('receptor.banco', 'c_Banco', r.banco, 'NOM61');
  if (!valid('c_EstadoNomina', `MEX|${r.clave_ent_fed}`))
    fail(at('receptor.clave_ent_fed'), `${r.clave_ent_fed} is not a c_Estado key of Mexico (MEX)`, 'NOM66');

  // Antigüedad is computed, so only its inputs can be wrong (NOM53); NOM54 then holds by construction.
  let antiguedad: string | undefined;
  if (r.fecha_inicio_rel_laboral !== undefined) {
    if (r.fecha_inicio_rel_laboral > req.fecha_final_pago) fail(at('receptor.fecha_inicio_rel_laboral'), 'must not be after fecha_final_pago', 'NOM53');
    else antiguedad = antiguedadSemanas(r.fecha_inicio_rel_laboral, req.fecha_final_pago);
  }
  // An employer registered with IMSS reports the worker's social-security data (NOM44).
  if (e?.registro_patronal) {
    const missing: [string, unknown][] = [
      ['nss', r.nss],
      ['fecha_inicio_rel_laboral', r.fecha_inicio_rel_laboral],
      ['riesgo_puesto', r.riesgo_puesto],
      ['salario_diario_integrado', r.salario_diario_integrado],
    ];
    for (const [name, value] of missing) {
      if (value === undefined)
        fail(
          at(`receptor.${name}`),
          `is required when emisor.registro_patronal is sent${name === 'fecha_inicio_rel_laboral' ? ' (Antigüedad is computed from it)' : ''}`,
          'NOM44',
        );
    }
  }

  // Bank account (NOM62–NOM65): a CLABE names its bank; a phone, account or card number needs Banco.
  if (r.cuenta_bancaria !== undefined) {
    const n = r.cuenta_bancaria.length;
    if (![10, 11, 16, 18].includes(n)) fail(at('receptor.cuenta_bancaria'), 'must have 10 (phone), 11 (account), 16 (card) or 18 (CLABE) digits', 'NOM62');
    else if (n === 18) {
      if (r.banco !== undefined) fail(at('receptor.banco'), 'must not be sent with an 18-digit CLABE', 'NOM63');
      if (!clabeValida(r.cuenta_bancaria)) fail(at('receptor.cuenta_bancaria'), 'is not a valid CLABE (wrong control digit)', 'NOM64');
    } else if (r.banco === undefined) fail(at('receptor.banco'), `is required with a ${n}-digit cuenta_bancaria`, 'NOM65');
  }
  const subContratacion = (r.subcontratacion ?? []).map((s) => ({ rfcLabora: s.rfc_labora, porcentajeTiempo: Dec.parse(s.porcentaje_tiempo).round(3).trim() }));
  if (subContratacion.length && sum(subContratacion.map((s) => s.porcentajeTiempo)).cmp(Dec.parse('100')) !== 0) {
    fail(at('receptor.subcontratacion'), 'the porcentaje_tiempo values must add up to 100', 'NOM68');
  }

  const incapacidades = req.incapacidades?.map((x, i) => {
    catalog(`incapacidades[${i}].tipo_incapacidad`, 'c_TipoIncapacidad', x.tipo_incapacidad, 'NOM104');
    return { diasIncapacidad: x.dias_incapacidad, tipoIncapacidad: x.tipo_incapacidad, importeMonetario: optMoney(x.importe_monetario) };
  });
  const totalIncapacidades = sum((incapacidades ?? []).map((x) => x.importeMonetario ?? ZERO));

  const percepciones = req.percepciones && preparePercepciones(req, incapacidades !== undefined, totalIncapacidades, catalog, fail);
  if (!percepciones) {
    if (req.separacion_indemnizacion) fail(at('separacion_indemnizacion'), 'is only sent with a percepción 022, 023 or 025', 'NOM78');
    if (req.jubilacion_pension_retiro) fail(at('jubilacion_pension_retiro'), 'is only sent with a percepción 039 or 044', 'NOM79');
  }

  // Deducciones (NOM93–NOM96); ISR (002) goes to TotalImpuestosRetenidos, present only when there is one (NOM91, NOM92).
  const deduccionItems = (req.deducciones ?? []).map((d, i) => {
    catalog(`deducciones[${i}].tipo_deduccion`, 'c_TipoDeduccion', d.tipo_deduccion, 'NOM93');
    const importe = money(d.importe);
    if (!isPositive(importe)) fail(at(`deducciones[${i}].importe`), 'must be greater than 0 (leave out a deducción of zero)', 'NOM96');
    if (d.tipo_deduccion === '006') {
      if (!incapacidades) fail(at('incapacidades'), `are required with deducción 006 (descuento por incapacidad) at deducciones[${i}]`, 'NOM94');
      else if (totalIncapacidades.cmp(importe) !== 0) {
        fail(
          at(`deducciones[${i}].importe`),
          `must equal the sum of incapacidades[].importe_monetario (${totalIncapacidades.toString()}) for deducción 006`,
          'NOM95',
        );
      }
    }
    return { tipoDeduccion: d.tipo_deduccion, clave: d.clave, concepto: d.concepto, importe };
  });
  let deducciones: NominaModel['deducciones'];
  if (req.deducciones) {
    const isr = deduccionItems.filter((d) => d.tipoDeduccion === '002');
    const otras = deduccionItems.filter((d) => d.tipoDeduccion !== '002');
    deducciones = {
      totalOtrasDeducciones: otras.length ? sum(otras.map((d) => d.importe)).round(2) : undefined,
      totalImpuestosRetenidos: isr.length ? sum(isr.map((d) => d.importe)).round(2) : undefined,
      items: deduccionItems,
    };
  }

  const otrosPagos = req.otros_pagos && prepareOtrosPagos(req, catalog, fail);
  // Subsidio para el empleo belongs to wage earners only (NOM105, NOM106); 007/008 are its monthly adjustments.
  const tipos = new Set(req.otros_pagos?.map((o) => o.tipo_otro_pago));
  if (r.tipo_regimen === '02' && !tipos.has('002') && !tipos.has('007') && !tipos.has('008')) {
    fail(at('otros_pagos'), 'tipo_regimen 02 needs an otro pago 002 (subsidio para el empleo, 0.00 when none applies) unless 007 or 008 is used', 'NOM105');
  }
  if (r.tipo_regimen !== '02') {
    req.otros_pagos?.forEach((o, i) => {
      if (['002', '007', '008'].includes(o.tipo_otro_pago))
        fail(at(`otros_pagos[${i}].tipo_otro_pago`), `${o.tipo_otro_pago} is only for tipo_regimen 02 (sueldos)`, 'NOM106');
    });
  }

  const totalPercepciones = percepciones
    ? sum([percepciones.totalSueldos, percepciones.totalSeparacionIndemnizacion, percepciones.totalJubilacionPensionRetiro].map((t) => t ?? ZERO)).round(2)
    : undefined;
  const totalOtrosPagos = otrosPagos ? sum(otrosPagos.map((o) => o.importe)).round(2) : undefined;
  const totalDeducciones = deducciones ? sum([deducciones.totalOtrasDeducciones ?? ZERO, deducciones.totalImpuestosRetenidos ?? ZERO]).round(2) : undefined;
  const ingresos = (totalPercepciones ?? ZERO).add(totalOtrosPagos ?? ZERO);
  if (sncf?.monto_recurso_propio !== undefined && money(sncf.monto_recurso_propio).cmp(ingresos) >= 0) {
    fail(at('emisor.entidad_sncf.monto_recurso_propio'), `must be less than total percepciones + otros pagos (${ingresos.round(2).toString()})`, 'NOM50');
  }
  // The concept's Descuento (= TotalDeducciones) may not exceed its Importe: the CFDI total would be negative.
  if (totalDeducciones && totalDeducciones.cmp(ingresos) > 0) {
    fail(
      at('deducciones'),
      `total deducciones ${totalDeducciones.toString()} exceed percepciones + otros pagos (${ingresos.round(2).toString()})`,
      'CFDI40110',
    );
  }

  return {
    tipoNomina: req.tipo_nomina,
    fechaPago: req.fecha_pago,
    fechaInicialPago: req.fecha_inicial_pago,
    fechaFinalPago: req.fecha_final_pago,
    numDiasPagados,
    totalPercepciones,
    totalDeducciones,
    totalOtrosPagos,
    emisor:
      e && (e.curp || e.registro_patronal || e.rfc_patron_origen || sncf)
        ? {
            curp: e.curp,
            registroPatronal: e.registro_patronal,
            rfcPatronOrigen: e.rfc_patron_origen,
            entidadSncf: sncf && { origenRecurso: sncf.origen_recurso, montoRecursoPropio: optMoney(sncf.monto_recurso_propio) },
          }
        : undefined,
    receptor: {
      curp: r.curp,
      numSeguridadSocial: r.nss,
      fechaInicioRelLaboral: r.fecha_inicio_rel_laboral,
      antiguedad,
      tipoContrato: r.tipo_contrato,
      sindicalizado: r.sindicalizado === undefined ? undefined : r.sindicalizado ? 'Sí' : 'No',
      tipoJornada: r.tipo_jornada,
      tipoRegimen: r.tipo_regimen,
      numEmpleado: r.num_empleado,
      departamento: r.departamento,
      puesto: r.puesto,
      riesgoPuesto: r.riesgo_puesto,
      periodicidadPago: r.periodicidad_pago,
      banco: r.banco,
      cuentaBancaria: r.cuenta_bancaria,
      salarioBaseCotApor: optMoney(r.salario_base_cot_apor),
      salarioDiarioIntegrado: optMoney(r.salario_diario_integrado),
      claveEntFed: r.clave_ent_fed,
      subContratacion,
    },
    percepciones,
    deducciones,
    otrosPagos,
    incapacidades,
  };
}

type CatalogCheck = (path: string, name: CatalogName, key: string, rule: string) => boolean;

/** Percepciones and their dependent nodes (NOM75–NOM90); totals by kind (NOM69–NOM74, NOM77–NOM79). */
function preparePercepciones(req: NominaInput, hasIncapacidades: boolean, totalIncapacidades: Dec, catalog: CatalogCheck, fail: Fail): PercepcionesModel {
  const items: PercepcionModel[] = req.percepciones!.map((p, i) => {
    const path = `percepciones[${i}]`;
    catalog(`${path}.tipo_percepcion`, 'c_TipoPercepcion', p.tipo_percepcion, 'NOM76');
    const importeGravado = money(p.importe_gravado);
    const importeExento = money(p.importe_exento);
    const importe = importeGravado.add(importeExento);
    if (!isPositive(importe)) fail(at(`${path}.importe_gravado`), 'importe_gravado + importe_exento must be greater than 0', 'NOM75');
    if (p.tipo_percepcion === '019' && !p.horas_extra) fail(at(`${path}.horas_extra`), 'is required with tipo_percepcion 019 (horas extra)', 'NOM84');
    if (p.tipo_percepcion !== '019' && p.horas_extra) fail(at(`${path}.horas_extra`), 'is only sent with tipo_percepcion 019 (horas extra)', 'NOM85');
    if (p.tipo_percepcion === '045' && !p.acciones_o_titulos)
      fail(at(`${path}.acciones_o_titulos`), 'is required with tipo_percepcion 045 (acciones o títulos)', 'NOM82');
    if (p.tipo_percepcion !== '045' && p.acciones_o_titulos)
      fail(at(`${path}.acciones_o_titulos`), 'is only sent with tipo_percepcion 045 (acciones o títulos)', 'NOM83');
    if (p.tipo_percepcion === '014') {
      if (!hasIncapacidades) fail(at('incapacidades'), `are required with percepción 014 (subsidio por incapacidad) at ${path}`, 'NOM86');
      else if (totalIncapacidades.cmp(importe) !== 0) {
        fail(
          at(`${path}.importe_gravado`),
          `importe_gravado + importe_exento must equal the sum of incapacidades[].importe_monetario (${totalIncapacidades.toString()}) for percepción 014`,
          'NOM87',
        );
      }
    }
    const horasExtra = (p.horas_extra ?? []).map((h, j) => {
      catalog(`${path}.horas_extra[${j}].tipo_horas`, 'c_TipoHoras', h.tipo_horas, 'NOM88');
      return { dias: h.dias, tipoHoras: h.tipo_horas, horasExtra: h.horas_extra, importePagado: money(h.importe_pagado) };
    });
    const a = p.acciones_o_titulos;
    return {
      tipoPercepcion: p.tipo_percepcion,
      clave: p.clave,
      concepto: p.concepto,
      importeGravado,
      importeExento,
      accionesOTitulos: a && { valorMercado: Dec.parse(a.valor_mercado).round(6).trim(), precioAlOtorgarse: Dec.parse(a.precio_al_otorgarse).round(6).trim() },
      horasExtra,
    };
  });

  const total = (list: PercepcionModel[]) => (list.length ? sum(list.flatMap((p) => [p.importeGravado, p.importeExento])).round(2) : undefined);
  const separacion = items.filter((p) => SEPARACION.has(p.tipoPercepcion));
  const jubilacion = items.filter((p) => JUBILACION.has(p.tipoPercepcion));

  // SeparacionIndemnizacion goes with 022/023/025 and only with them (NOM78).
  const s = req.separacion_indemnizacion;
  if (separacion.length && !s) fail(at('separacion_indemnizacion'), 'is required with a percepción 022, 023 or 025', 'NOM78');
  if (!separacion.length && s) fail(at('separacion_indemnizacion'), 'is only sent with a percepción 022, 023 or 025', 'NOM78');

  // JubilacionPensionRetiro goes with 039/044 and only with them (NOM79); 039 is paid at once, 044 in parts (NOM80, NOM81, NOM89, NOM90).
  const j = req.jubilacion_pension_retiro;
  if (jubilacion.length && !j) fail(at('jubilacion_pension_retiro'), 'is required with a percepción 039 or 044', 'NOM79');
  if (!jubilacion.length && j) fail(at('jubilacion_pension_retiro'), 'is only sent with a percepción 039 or 044', 'NOM79');
  if (j && jubilacion.length) {
    const tipos = new Set(jubilacion.map((p) => p.tipoPercepcion));
    const jp = 'jubilacion_pension_retiro';
    if (tipos.has('039')) {
      if (j.total_una_exhibicion === undefined) fail(at(`${jp}.total_una_exhibicion`), 'is required with percepción 039 (one payment)', 'NOM80');
      if (j.total_parcialidad !== undefined || j.monto_diario !== undefined)
        fail(at(`${jp}.total_parcialidad`), 'total_parcialidad and monto_diario are not sent with percepción 039 (one payment)', 'NOM80');
    }
    if (tipos.has('044')) {
      if (j.total_parcialidad === undefined || j.monto_diario === undefined)
        fail(at(`${jp}.total_parcialidad`), 'total_parcialidad and monto_diario are required with percepción 044 (partial payments)', 'NOM81');
      if (j.total_una_exhibicion !== undefined) fail(at(`${jp}.total_una_exhibicion`), 'is not sent with percepción 044 (partial payments)', 'NOM81');
    }
  }

  return {
    totalSueldos: total(items.filter((p) => !SEPARACION.has(p.tipoPercepcion) && !JUBILACION.has(p.tipoPercepcion))),
    totalSeparacionIndemnizacion: total(separacion),
    totalJubilacionPensionRetiro: total(jubilacion),
    totalGravado: sum(items.map((p) => p.importeGravado)).round(2),
    totalExento: sum(items.map((p) => p.importeExento)).round(2),
    items,
    jubilacionPensionRetiro:
      j && jubilacion.length
        ? {
            totalUnaExhibicion: optMoney(j.total_una_exhibicion),
            totalParcialidad: optMoney(j.total_parcialidad),
            montoDiario: optMoney(j.monto_diario),
            ingresoAcumulable: money(j.ingreso_acumulable),
            ingresoNoAcumulable: money(j.ingreso_no_acumulable),
          }
        : undefined,
    separacionIndemnizacion:
      s && separacion.length
        ? {
            totalPagado: money(s.total_pagado),
            numAniosServicio: s.num_anios_servicio,
            ultimoSueldoMensOrd: money(s.ultimo_sueldo_mens_ord),
            ingresoAcumulable: money(s.ingreso_acumulable),
            ingresoNoAcumulable: money(s.ingreso_no_acumulable),
          }
        : undefined,
  };
}

/** OtrosPagos (NOM97–NOM103, NOM107). */
function prepareOtrosPagos(req: NominaInput, catalog: CatalogCheck, fail: Fail): OtroPagoModel[] {
  const paymentYear = Number(req.fecha_pago.slice(0, 4));
  return req.otros_pagos!.map((o, i) => {
    const path = `otros_pagos[${i}]`;
    catalog(`${path}.tipo_otro_pago`, 'c_TipoOtroPago', o.tipo_otro_pago, 'NOM97');
    const importe = money(o.importe);
    const subsidioCausado = optMoney(o.subsidio_causado);
    // Subsidio (002) may be 0.00: the node still records the subsidy caused; any other otro pago must pay something.
    if (o.tipo_otro_pago !== '002' && !isPositive(importe)) fail(at(`${path}.importe`), 'must be greater than 0', 'NOM100');
    if (o.tipo_otro_pago === '002') {
      if (!subsidioCausado) fail(at(`${path}.subsidio_causado`), 'is required with tipo_otro_pago 002 (subsidio para el empleo)', 'NOM99');
      else if (importe.cmp(subsidioCausado) > 0) fail(at(`${path}.importe`), `must not exceed subsidio_causado (${subsidioCausado.toString()})`, 'NOM107');
    } else if (subsidioCausado) fail(at(`${path}.subsidio_causado`), 'is only sent with tipo_otro_pago 002 (subsidio para el empleo)');

    const c = o.compensacion_saldos_a_favor;
    if (o.tipo_otro_pago === '004' && !c)
      fail(at(`${path}.compensacion_saldos_a_favor`), 'is required with tipo_otro_pago 004 (compensación de saldo a favor)', 'NOM98');
    if (o.tipo_otro_pago !== '004' && c)
      fail(at(`${path}.compensacion_saldos_a_favor`), 'is only sent with tipo_otro_pago 004 (compensación de saldo a favor)');
    let compensacion: OtroPagoModel['compensacionSaldosAFavor'];
    if (c) {
      compensacion = { saldoAFavor: money(c.saldo_a_favor), anio: c.anio, remanenteSalFav: money(c.remanente_sal_fav) };
      if (compensacion.saldoAFavor.cmp(compensacion.remanenteSalFav) < 0)
        fail(at(`${path}.compensacion_saldos_a_favor.saldo_a_favor`), 'must be at least remanente_sal_fav', 'NOM102');
      // A balance comes from an annual return already filed: an earlier year (the current one only in December).
      const december = req.fecha_pago.slice(5, 7) === '12';
      if (c.anio > paymentYear || (c.anio === paymentYear && !december)) {
        fail(at(`${path}.compensacion_saldos_a_favor.anio`), `must be before ${paymentYear}, the year of fecha_pago (or equal to it in December)`, 'NOM103');
      }
    }
    return { tipoOtroPago: o.tipo_otro_pago, clave: o.clave, concepto: o.concepto, importe, subsidioCausado, compensacionSaldosAFavor: compensacion };
  });
}

/** CFDI-level amounts (docs/sat-rules.md §9): SubTotal = TotalPercepciones + TotalOtrosPagos; Descuento = TotalDeducciones (undefined when none); Total = SubTotal − Descuento. All 2 decimals. */
export function nominaComprobanteAmounts(m: NominaModel): { subTotal: Dec; descuento?: Dec; total: Dec } {
  const subTotal = (m.totalPercepciones ?? ZERO).add(m.totalOtrosPagos ?? ZERO).round(2);
  const descuento = m.totalDeducciones?.round(2);
  return { subTotal, descuento, total: subTotal.sub(descuento ?? ZERO).round(2) };
}

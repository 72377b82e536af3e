import { child, childrenNamed, type XmlNode } from '../../xml.ts';
import { amountIn, described, groupDigits, money, none, printedDate } from '../../pdf/format.ts';
import type { PdfColumn, PdfLayout, TotalRow } from '../../pdf/layout.ts';

/** A nómina's amounts are pesos: its CFDI's Moneda is MXN (Guía de llenado del comprobante de nómina). */
const pesos = (amount: string | undefined) => amountIn('MXN', amount);

const DURATION_UNITS: Record<string, [string, string]> = { Y: ['año', 'años'], M: ['mes', 'meses'], W: ['semana', 'semanas'], D: ['día', 'días'] };

/** Antigüedad, an ISO 8601 duration: "P78W" → "78 semanas (P78W)"; the raw value when it is not one. */
function seniority(value: string | undefined): string {
  if (!value) return '';
  const parts = [...value.matchAll(/(\d+)([YMWD])/g)];
  if (!/^P(\d+[YMWD])+$/.test(value) || !parts.length) return value;
  return `${parts.map(([, n, unit]) => `${Number(n)} ${DURATION_UNITS[unit!]![Number(n) === 1 ? 0 : 1]}`).join(' ')} (${value})`;
}

const PERCEPCION_COLUMNS: PdfColumn[] = [
  { title: 'Tipo de percepción', width: 170 },
  { title: 'Clave', width: 40 },
  { title: 'Concepto', width: 190, size: 7.5, notes: true },
  { title: 'Importe gravado', width: 70, align: 'right', size: 7.5 },
  { title: 'Importe exento', width: 70, align: 'right', size: 7.5 },
];
const DEDUCCION_COLUMNS: PdfColumn[] = [
  { title: 'Tipo de deducción', width: 170 },
  { title: 'Clave', width: 40 },
  { title: 'Concepto', width: 260, size: 7.5 },
  { title: 'Importe', width: 70, align: 'right', size: 7.5 },
];
const OTRO_PAGO_COLUMNS: PdfColumn[] = [
  { title: 'Tipo de otro pago', width: 170 },
  { title: 'Clave', width: 40 },
  { title: 'Concepto', width: 190, size: 7.5, notes: true },
  { title: 'Importe', width: 70, align: 'right', size: 7.5 },
  { title: 'Subsidio causado', width: 70, align: 'right', size: 7.5 },
];
const INCAPACIDAD_COLUMNS: PdfColumn[] = [
  { title: 'Tipo de incapacidad', width: 400 },
  { title: 'Días', width: 70, align: 'right', size: 7.5 },
  { title: 'Importe monetario', width: 70, align: 'right', size: 7.5 },
];

/** Complemento de nómina 1.2: period, employer and employee, the tables of percepciones, deducciones, otros pagos and incapacidades. */
export function renderNomina(layout: PdfLayout, nomina: XmlNode): void {
  const n = nomina.attrs;
  const emisor = child(nomina, 'nomina12:Emisor')?.attrs ?? {};
  const sncf = child(child(nomina, 'nomina12:Emisor') ?? none, 'nomina12:EntidadSNCF')?.attrs ?? {};
  const receptor = child(nomina, 'nomina12:Receptor')?.attrs ?? {};
  layout.section('RECIBO DE NÓMINA');
  layout.fields(
    [
      ['Tipo de nómina', described('c_TipoNomina', n.TipoNomina)],
      ['Periodo de pago', n.FechaInicialPago || n.FechaFinalPago ? `${printedDate(n.FechaInicialPago)} al ${printedDate(n.FechaFinalPago)}` : undefined],
      ['Fecha de pago', printedDate(n.FechaPago)],
      ['Días pagados', n.NumDiasPagados],
      ['Registro patronal', emisor.RegistroPatronal],
      ['CURP del patrón', emisor.Curp],
      ['RFC del patrón de origen', emisor.RfcPatronOrigen],
      ['Origen del recurso', described('c_OrigenRecurso', sncf.OrigenRecurso)],
      ['Monto de recurso propio', pesos(sncf.MontoRecursoPropio)],
    ],
    3,
  );

  layout.heading('Empleado');
  layout.fields(
    [
      ['CURP', receptor.Curp],
      ['Número de seguridad social', receptor.NumSeguridadSocial],
      ['Número de empleado', receptor.NumEmpleado],
      ['Puesto', receptor.Puesto],
      ['Departamento', receptor.Departamento],
      ['Fecha de inicio de la relación laboral', printedDate(receptor.FechaInicioRelLaboral)],
      ['Antigüedad', seniority(receptor['Antigüedad'])],
      ['Tipo de contrato', described('c_TipoContrato', receptor.TipoContrato)],
      ['Tipo de jornada', described('c_TipoJornada', receptor.TipoJornada)],
      ['Tipo de régimen', described('c_TipoRegimen', receptor.TipoRegimen)],
      ['Periodicidad del pago', described('c_PeriodicidadPago', receptor.PeriodicidadPago)],
      ['Riesgo del puesto', described('c_RiesgoPuesto', receptor.RiesgoPuesto)],
      ['Sindicalizado', receptor.Sindicalizado],
      ['Salario base de cotización', pesos(receptor.SalarioBaseCotApor)],
      ['Salario diario integrado', pesos(receptor.SalarioDiarioIntegrado)],
      ['Entidad federativa', receptor.ClaveEntFed],
      ['Banco', described('c_Banco', receptor.Banco)],
      ['Cuenta bancaria', receptor.CuentaBancaria],
    ],
    3,
  );
  const subcontratos = childrenNamed(child(nomina, 'nomina12:Receptor') ?? none, 'nomina12:SubContratacion');
  if (subcontratos.length) {
    layout.fields(
      subcontratos.map((s): [string, string] => [
        'Subcontratación',
        `RFC donde labora ${s.attrs.RfcLabora ?? ''} · ${s.attrs.PorcentajeTiempo ?? ''}% del tiempo`,
      ]),
      1,
    );
  }

  const percepciones = child(nomina, 'nomina12:Percepciones');
  if (percepciones) {
    layout.heading('Percepciones');
    const row = layout.table(PERCEPCION_COLUMNS);
    for (const percepcion of childrenNamed(percepciones, 'nomina12:Percepcion')) {
      const p = percepcion.attrs;
      const acciones = child(percepcion, 'nomina12:AccionesOTitulos')?.attrs;
      row(
        [described('c_TipoPercepcion', p.TipoPercepcion), p.Clave ?? '', p.Concepto ?? '', pesos(p.ImporteGravado), pesos(p.ImporteExento)],
        [
          ...(acciones
            ? [`Acciones o títulos: valor de mercado ${pesos(acciones.ValorMercado)} · precio al otorgarse ${pesos(acciones.PrecioAlOtorgarse)}`]
            : []),
          ...childrenNamed(percepcion, 'nomina12:HorasExtra').map(
            (h) =>
              `Horas extra: ${h.attrs.HorasExtra ?? ''} h en ${h.attrs.Dias ?? ''} días · ${described('c_TipoHoras', h.attrs.TipoHoras)} · ${pesos(h.attrs.ImportePagado)}`,
          ),
        ],
      );
    }
    const p = percepciones.attrs;
    const jubilacion = child(percepciones, 'nomina12:JubilacionPensionRetiro')?.attrs ?? {};
    const separacion = child(percepciones, 'nomina12:SeparacionIndemnizacion')?.attrs ?? {};
    layout.fields(
      [
        ['Total de sueldos', pesos(p.TotalSueldos)],
        ['Total de separación e indemnización', pesos(p.TotalSeparacionIndemnizacion)],
        ['Total de jubilación, pensión o retiro', pesos(p.TotalJubilacionPensionRetiro)],
        ['Total gravado', pesos(p.TotalGravado)],
        ['Total exento', pesos(p.TotalExento)],
        ['Jubilación: total en una exhibición', pesos(jubilacion.TotalUnaExhibicion)],
        ['Jubilación: total en parcialidades', pesos(jubilacion.TotalParcialidad)],
        ['Jubilación: monto diario', pesos(jubilacion.MontoDiario)],
        ['Jubilación: ingreso acumulable', pesos(jubilacion.IngresoAcumulable)],
        ['Jubilación: ingreso no acumulable', pesos(jubilacion.IngresoNoAcumulable)],
        ['Separación: total pagado', pesos(separacion.TotalPagado)],
        ['Separación: años de servicio', separacion.NumAñosServicio],
        ['Separación: último sueldo mensual ordinario', pesos(separacion.UltimoSueldoMensOrd)],
        ['Separación: ingreso acumulable', pesos(separacion.IngresoAcumulable)],
        ['Separación: ingreso no acumulable', pesos(separacion.IngresoNoAcumulable)],
      ],
      3,
    );
  }

  const deducciones = child(nomina, 'nomina12:Deducciones');
  if (deducciones) {
    layout.heading('Deducciones');
    const row = layout.table(DEDUCCION_COLUMNS);
    for (const { attrs: d } of childrenNamed(deducciones, 'nomina12:Deduccion')) {
      row([described('c_TipoDeduccion', d.TipoDeduccion), d.Clave ?? '', d.Concepto ?? '', pesos(d.Importe)]);
    }
    layout.fields(
      [
        ['Total de otras deducciones', pesos(deducciones.attrs.TotalOtrasDeducciones)],
        ['Total de impuestos retenidos', pesos(deducciones.attrs.TotalImpuestosRetenidos)],
      ],
      3,
    );
  }

  const otrosPagos = childrenNamed(child(nomina, 'nomina12:OtrosPagos') ?? none, 'nomina12:OtroPago');
  if (otrosPagos.length) {
    layout.heading('Otros pagos');
    const row = layout.table(OTRO_PAGO_COLUMNS);
    for (const otro of otrosPagos) {
      const o = otro.attrs;
      const compensacion = child(otro, 'nomina12:CompensacionSaldosAFavor')?.attrs;
      row(
        [
          described('c_TipoOtroPago', o.TipoOtroPago),
          o.Clave ?? '',
          o.Concepto ?? '',
          pesos(o.Importe),
          pesos(child(otro, 'nomina12:SubsidioAlEmpleo')?.attrs.SubsidioCausado),
        ],
        compensacion
          ? [
              `Compensación de saldo a favor ${compensacion.Año ?? ''}: saldo ${pesos(compensacion.SaldoAFavor)} · remanente ${pesos(compensacion.RemanenteSalFav)}`,
            ]
          : [],
      );
    }
  }

  const incapacidades = childrenNamed(child(nomina, 'nomina12:Incapacidades') ?? none, 'nomina12:Incapacidad');
  if (incapacidades.length) {
    layout.heading('Incapacidades');
    const row = layout.table(INCAPACIDAD_COLUMNS);
    for (const { attrs: i } of incapacidades) row([described('c_TipoIncapacidad', i.TipoIncapacidad), i.DiasIncapacidad ?? '', pesos(i.ImporteMonetario)]);
  }
}

/** The nómina's totals for the totals block; the neto is the CFDI's Total. */
export function nominaTotals(nomina: XmlNode, total: string | undefined, moneda: string): TotalRow[] {
  const n = nomina.attrs;
  return [
    ['Total de percepciones', money(groupDigits(n.TotalPercepciones ?? '0'), moneda)],
    ...(n.TotalOtrosPagos !== undefined ? [['Total de otros pagos', money(groupDigits(n.TotalOtrosPagos), moneda)] as TotalRow] : []),
    ['Total de deducciones', money(`-${groupDigits(n.TotalDeducciones ?? '0')}`, moneda)],
    [`Neto a pagar ${moneda}`, money(groupDigits(total), moneda), true],
  ];
}

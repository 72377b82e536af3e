import { catalogEntry, type CatalogName } from '../catalogs/index.ts';
import { Dec } from './decimal.ts';
import { child, childrenNamed, type XmlNode } from './xml.ts';

/**
 * What the printed representation shows of the Pagos 2.0 and Nómina 1.2 complements. This module decides the
 * content only; pdf.ts owns the drawing and the pagination and lends it the `PdfLayout` below.
 */

/** A table column; the widths of a table add up to the page's content width (540 pt). */
export interface PdfColumn {
  title: string;
  width: number;
  align?: 'left' | 'right';
  /** Font size of the cells (the layout's small size when absent). */
  size?: number;
  /** The column that carries a row's notes (small grey lines under its text). */
  notes?: boolean;
}

export interface PdfLayout {
  section(title: string): void;
  /** A heading inside a section (one per pago, one per table). */
  heading(title: string): void;
  fields(pairs: [string, string | undefined][], columns?: number): void;
  /** Draws the column titles now and returns the row writer; rows continue on new pages under repeated titles. */
  table(columns: PdfColumn[]): (values: string[], notes?: string[]) => void;
  /** A paragraph across the page. */
  note(text: string): void;
}

/** A line of the totals block: label, amount, bold. */
export type TotalRow = [string, string, boolean?];

/** "1234567.5" → "1,234,567.5": digits grouped, the decimals exactly as in the XML. */
export function groupDigits(amount: string | undefined): string {
  if (!amount) return '';
  const [int, frac] = amount.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

/** The decimals of a currency (c_Moneda): 2 for MXN and USD, 0 for JPY and XXX. */
export const currencyDecimals = (moneda: string | undefined): number => Number(catalogEntry('c_Moneda', moneda ?? 'MXN')?.decimales ?? '2');

/**
 * A unit price (or a cuota) with the currency's decimals, like the amounts beside it, unless the XML has more
 * significant ones, which are kept: "1000" → "1,000.00", "0.123450" → "0.12345" (never rounded: it is the value).
 */
export function unitAmount(value: string | undefined, decimals: number): string {
  if (!value) return '';
  return groupDigits(Dec.parse(value).trim(decimals).toString());
}

/** The currency's sign before an amount: "$1,160.00" for MXN, the ISO code for another ("USD 1,160.00"); none for XXX. */
export function money(amount: string, moneda: string | undefined): string {
  if (!amount || moneda === 'XXX') return amount;
  const negative = amount.startsWith('-');
  const sign = !moneda || moneda === 'MXN' ? '$' : `${moneda} `;
  return `${negative ? '-' : ''}${sign}${negative ? amount.slice(1) : amount}`;
}

/** A TasaOCuota as read: a Tasa as a percentage ("0.160000" → "16 %", "0.106667" → "10.6667 %"), a Cuota as the amount it is. */
export function rateText(tipoFactor: string | undefined, tasaOCuota: string | undefined): string {
  if (!tasaOCuota) return '';
  if (tipoFactor !== 'Tasa') return unitAmount(tasaOCuota, 2);
  return `${Dec.parse(tasaOCuota).mul(Dec.parse('100')).trim().toString()} %`;
}

/** SAT's local date-time "2026-11-20T12:00:00" as people in Mexico read it, "20/11/2026 12:00"; a date alone "20/11/2026". */
export function printedDate(value: string | undefined): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(value ?? '');
  if (!m) return value ?? '';
  return `${m[3]}/${m[2]}/${m[1]}${m[4] ? ` ${m[4]}:${m[5]}` : ''}`;
}

/** "601 - General de Ley Personas Morales"; the bare key when the catalog does not know it. */
export function described(catalog: CatalogName, key: string | undefined, column = 'descripcion'): string {
  if (!key) return '';
  const text = catalogEntry(catalog, key)?.[column];
  return text ? `${key} - ${text}` : key;
}

/** One tax of a concepto, a DoctoRelacionado or a pago, as a note line. */
export const taxLine = (kind: string, t: { Impuesto?: string; TipoFactor?: string; TasaOCuota?: string; Base?: string; Importe?: string }) =>
  `${kind} ${described('c_Impuesto', t.Impuesto)} ${t.TipoFactor ?? ''}${t.TasaOCuota ? ` ${rateText(t.TipoFactor, t.TasaOCuota)}` : ''}${t.Base ? ` · Base ${groupDigits(t.Base)}` : ''}${t.Importe ? ` · Importe ${groupDigits(t.Importe)}` : ''}`;

const none: XmlNode = { name: '', attrs: {}, children: [] };
/** The children named `name` of the child named `parent` (none when the parent is absent). */
const nested = (node: XmlNode, parent: string, name: string) => childrenNamed(child(node, parent) ?? none, name);

/** Pagos 2.0 tax attributes with the suffix (DR, P) dropped, for `taxLine`. */
const unsuffixed = (attrs: Record<string, string>, suffix: string) =>
  Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k.endsWith(suffix) ? k.slice(0, -suffix.length) : k, v]));

const PAGOS_TOTALES: [string, string][] = [
  ['MontoTotalPagos', 'Monto total de los pagos (MXN)'],
  ['TotalRetencionesIVA', 'Total de retenciones de IVA'],
  ['TotalRetencionesISR', 'Total de retenciones de ISR'],
  ['TotalRetencionesIEPS', 'Total de retenciones de IEPS'],
  ['TotalTrasladosBaseIVA16', 'Base de traslados de IVA 16%'],
  ['TotalTrasladosImpuestoIVA16', 'Traslados de IVA 16%'],
  ['TotalTrasladosBaseIVA8', 'Base de traslados de IVA 8%'],
  ['TotalTrasladosImpuestoIVA8', 'Traslados de IVA 8%'],
  ['TotalTrasladosBaseIVA0', 'Base de traslados de IVA 0%'],
  ['TotalTrasladosImpuestoIVA0', 'Traslados de IVA 0%'],
  ['TotalTrasladosBaseIVAExento', 'Base de traslados exentos de IVA'],
];

const DOCTO_COLUMNS: PdfColumn[] = [
  { title: 'Documento relacionado (UUID)', width: 136, notes: true },
  { title: 'Serie y folio', width: 50 },
  { title: 'Moneda', width: 32 },
  { title: 'Equivalencia', width: 47, align: 'right' },
  { title: 'Parcialidad', width: 42, align: 'right' },
  { title: 'Saldo anterior', width: 60, align: 'right', size: 7.5 },
  { title: 'Importe pagado', width: 60, align: 'right', size: 7.5 },
  { title: 'Saldo insoluto', width: 60, align: 'right', size: 7.5 },
  { title: 'Objeto de impuesto', width: 53 },
];

const IMPUESTOS_P_COLUMNS: PdfColumn[] = [
  { title: 'Impuesto', width: 150 },
  { title: 'Tipo factor', width: 90 },
  { title: 'Tasa o cuota', width: 100, align: 'right' },
  { title: 'Base', width: 100, align: 'right', size: 7.5 },
  { title: 'Importe', width: 100, align: 'right', size: 7.5 },
];

/** Complemento para recepción de pagos 2.0: its totals, then each pago with its documents and its taxes. */
export function renderPagos(layout: PdfLayout, pagos: XmlNode): void {
  layout.section('COMPLEMENTO DE PAGO');
  const totales = child(pagos, 'pago20:Totales')?.attrs ?? {};
  layout.fields(PAGOS_TOTALES.map(([attr, label]): [string, string | undefined] => [label, groupDigits(totales[attr])]), 3);

  const all = childrenNamed(pagos, 'pago20:Pago');
  all.forEach((pago, i) => {
    const p = pago.attrs;
    layout.heading(all.length > 1 ? `Pago ${i + 1} de ${all.length}` : 'Pago');
    layout.fields(
      [
        ['Fecha de pago', printedDate(p.FechaPago)],
        ['Forma de pago', described('c_FormaPago', p.FormaDePagoP)],
        ['Moneda', described('c_Moneda', p.MonedaP)],
        ['Tipo de cambio', p.TipoCambioP],
        ['Monto', money(groupDigits(p.Monto), p.MonedaP)],
        ['Número de operación', p.NumOperacion],
        ['RFC del banco ordenante', p.RfcEmisorCtaOrd],
        ['Banco ordenante (extranjero)', p.NomBancoOrdExt],
        ['Cuenta ordenante', p.CtaOrdenante],
        ['RFC del banco beneficiario', p.RfcEmisorCtaBen],
        ['Cuenta beneficiaria', p.CtaBeneficiario],
        ['Tipo de cadena de pago', described('c_TipoCadenaPago', p.TipoCadPago)],
      ],
      3,
    );
    layout.fields([
      ['Certificado del pago', p.CertPago],
      ['Cadena original del pago', p.CadPago],
      ['Sello del pago', p.SelloPago],
    ], 1);

    const doctos = childrenNamed(pago, 'pago20:DoctoRelacionado');
    if (doctos.length) {
      layout.heading('Documentos relacionados');
      const row = layout.table(DOCTO_COLUMNS);
      for (const docto of doctos) {
        const d = docto.attrs;
        const impuestos = child(docto, 'pago20:ImpuestosDR') ?? none;
        row(
          [
            d.IdDocumento ?? '',
            [d.Serie, d.Folio].filter(Boolean).join('-'),
            d.MonedaDR ?? '',
            d.EquivalenciaDR ?? '',
            d.NumParcialidad ?? '',
            groupDigits(d.ImpSaldoAnt),
            groupDigits(d.ImpPagado),
            groupDigits(d.ImpSaldoInsoluto),
            described('c_ObjetoImp', d.ObjetoImpDR),
          ],
          [
            ...nested(impuestos, 'pago20:TrasladosDR', 'pago20:TrasladoDR').map((t) => taxLine('Traslado', unsuffixed(t.attrs, 'DR'))),
            ...nested(impuestos, 'pago20:RetencionesDR', 'pago20:RetencionDR').map((t) => taxLine('Retención', unsuffixed(t.attrs, 'DR'))),
          ],
        );
      }
    }

    const impuestosP = child(pago, 'pago20:ImpuestosP') ?? none;
    const taxes = [
      ...nested(impuestosP, 'pago20:TrasladosP', 'pago20:TrasladoP').map((t) => ['Traslado', unsuffixed(t.attrs, 'P')] as const),
      ...nested(impuestosP, 'pago20:RetencionesP', 'pago20:RetencionP').map((t) => ['Retención', unsuffixed(t.attrs, 'P')] as const),
    ];
    if (taxes.length) {
      layout.heading('Impuestos del pago');
      const row = layout.table(IMPUESTOS_P_COLUMNS);
      for (const [kind, t] of taxes) {
        row([`${kind} ${described('c_Impuesto', t.Impuesto)}`, t.TipoFactor ?? '', rateText(t.TipoFactor, t.TasaOCuota), groupDigits(t.Base), groupDigits(t.Importe)]);
      }
    }
  });
}

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
      ['Monto de recurso propio', groupDigits(sncf.MontoRecursoPropio)],
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
      ['Salario base de cotización', groupDigits(receptor.SalarioBaseCotApor)],
      ['Salario diario integrado', groupDigits(receptor.SalarioDiarioIntegrado)],
      ['Entidad federativa', receptor.ClaveEntFed],
      ['Banco', described('c_Banco', receptor.Banco)],
      ['Cuenta bancaria', receptor.CuentaBancaria],
    ],
    3,
  );
  const subcontratos = childrenNamed(child(nomina, 'nomina12:Receptor') ?? none, 'nomina12:SubContratacion');
  if (subcontratos.length) {
    layout.fields(subcontratos.map((s): [string, string] => ['Subcontratación', `RFC donde labora ${s.attrs.RfcLabora ?? ''} · ${s.attrs.PorcentajeTiempo ?? ''}% del tiempo`]), 1);
  }

  const percepciones = child(nomina, 'nomina12:Percepciones');
  if (percepciones) {
    layout.heading('Percepciones');
    const row = layout.table(PERCEPCION_COLUMNS);
    for (const percepcion of childrenNamed(percepciones, 'nomina12:Percepcion')) {
      const p = percepcion.attrs;
      const acciones = child(percepcion, 'nomina12:AccionesOTitulos')?.attrs;
      row(
        [described('c_TipoPercepcion', p.TipoPercepcion), p.Clave ?? '', p.Concepto ?? '', groupDigits(p.ImporteGravado), groupDigits(p.ImporteExento)],
        [
          ...(acciones ? [`Acciones o títulos: valor de mercado ${groupDigits(acciones.ValorMercado)} · precio al otorgarse ${groupDigits(acciones.PrecioAlOtorgarse)}`] : []),
          ...childrenNamed(percepcion, 'nomina12:HorasExtra').map(
            (h) => `Horas extra: ${h.attrs.HorasExtra ?? ''} h en ${h.attrs.Dias ?? ''} días · ${described('c_TipoHoras', h.attrs.TipoHoras)} · ${groupDigits(h.attrs.ImportePagado)}`,
          ),
        ],
      );
    }
    const p = percepciones.attrs;
    const jubilacion = child(percepciones, 'nomina12:JubilacionPensionRetiro')?.attrs ?? {};
    const separacion = child(percepciones, 'nomina12:SeparacionIndemnizacion')?.attrs ?? {};
    layout.fields(
      [
        ['Total de sueldos', groupDigits(p.TotalSueldos)],
        ['Total de separación e indemnización', groupDigits(p.TotalSeparacionIndemnizacion)],
        ['Total de jubilación, pensión o retiro', groupDigits(p.TotalJubilacionPensionRetiro)],
        ['Total gravado', groupDigits(p.TotalGravado)],
        ['Total exento', groupDigits(p.TotalExento)],
        ['Jubilación: total en una exhibición', groupDigits(jubilacion.TotalUnaExhibicion)],
        ['Jubilación: total en parcialidades', groupDigits(jubilacion.TotalParcialidad)],
        ['Jubilación: monto diario', groupDigits(jubilacion.MontoDiario)],
        ['Jubilación: ingreso acumulable', groupDigits(jubilacion.IngresoAcumulable)],
        ['Jubilación: ingreso no acumulable', groupDigits(jubilacion.IngresoNoAcumulable)],
        ['Separación: total pagado', groupDigits(separacion.TotalPagado)],
        ['Separación: años de servicio', separacion.NumAñosServicio],
        ['Separación: último sueldo mensual ordinario', groupDigits(separacion.UltimoSueldoMensOrd)],
        ['Separación: ingreso acumulable', groupDigits(separacion.IngresoAcumulable)],
        ['Separación: ingreso no acumulable', groupDigits(separacion.IngresoNoAcumulable)],
      ],
      3,
    );
  }

  const deducciones = child(nomina, 'nomina12:Deducciones');
  if (deducciones) {
    layout.heading('Deducciones');
    const row = layout.table(DEDUCCION_COLUMNS);
    for (const { attrs: d } of childrenNamed(deducciones, 'nomina12:Deduccion')) {
      row([described('c_TipoDeduccion', d.TipoDeduccion), d.Clave ?? '', d.Concepto ?? '', groupDigits(d.Importe)]);
    }
    layout.fields(
      [
        ['Total de otras deducciones', groupDigits(deducciones.attrs.TotalOtrasDeducciones)],
        ['Total de impuestos retenidos', groupDigits(deducciones.attrs.TotalImpuestosRetenidos)],
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
        [described('c_TipoOtroPago', o.TipoOtroPago), o.Clave ?? '', o.Concepto ?? '', groupDigits(o.Importe), groupDigits(child(otro, 'nomina12:SubsidioAlEmpleo')?.attrs.SubsidioCausado)],
        compensacion
          ? [`Compensación de saldo a favor ${compensacion.Año ?? ''}: saldo ${groupDigits(compensacion.SaldoAFavor)} · remanente ${groupDigits(compensacion.RemanenteSalFav)}`]
          : [],
      );
    }
  }

  const incapacidades = childrenNamed(child(nomina, 'nomina12:Incapacidades') ?? none, 'nomina12:Incapacidad');
  if (incapacidades.length) {
    layout.heading('Incapacidades');
    const row = layout.table(INCAPACIDAD_COLUMNS);
    for (const { attrs: i } of incapacidades) row([described('c_TipoIncapacidad', i.TipoIncapacidad), i.DiasIncapacidad ?? '', groupDigits(i.ImporteMonetario)]);
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

export const TRASLADO_NOTE =
  'Comprobante de traslado: ampara la tenencia y el transporte de las mercancías descritas; no documenta una venta ni un cobro, por lo que no expresa importes a pagar.';

import { child, childrenNamed, type XmlNode } from '../../xml.ts';
import { amountIn, described, none, printedDate, rateText, taxLine } from '../../pdf/format.ts';
import type { PdfColumn, PdfLayout } from '../../pdf/layout.ts';

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
  layout.fields(
    // Totales are in MXN whatever the pagos' currencies (Anexo 20, complemento para recepción de pagos 2.0).
    PAGOS_TOTALES.map(([attr, label]): [string, string | undefined] => [label, amountIn('MXN', totales[attr])]),
    3,
  );

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
        ['Monto', amountIn(p.MonedaP, p.Monto)],
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
    layout.fields(
      [
        ['Certificado del pago', p.CertPago],
        ['Cadena original del pago', p.CadPago],
        ['Sello del pago', p.SelloPago],
      ],
      1,
    );

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
            amountIn(d.MonedaDR, d.ImpSaldoAnt),
            amountIn(d.MonedaDR, d.ImpPagado),
            amountIn(d.MonedaDR, d.ImpSaldoInsoluto),
            described('c_ObjetoImp', d.ObjetoImpDR),
          ],
          [
            ...nested(impuestos, 'pago20:TrasladosDR', 'pago20:TrasladoDR').map((t) => taxLine('Traslado', unsuffixed(t.attrs, 'DR'), d.MonedaDR)),
            ...nested(impuestos, 'pago20:RetencionesDR', 'pago20:RetencionDR').map((t) => taxLine('Retención', unsuffixed(t.attrs, 'DR'), d.MonedaDR)),
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
        row([
          `${kind} ${described('c_Impuesto', t.Impuesto)}`,
          t.TipoFactor ?? '',
          rateText(t.TipoFactor, t.TasaOCuota),
          amountIn(p.MonedaP, t.Base),
          amountIn(p.MonedaP, t.Importe),
        ]);
      }
    }
  });
}

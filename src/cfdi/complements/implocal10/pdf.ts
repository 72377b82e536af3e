import { childrenNamed, type XmlNode } from '../../xml.ts';
import type { PdfLayout } from '../../pdf/layout.ts';

const rate = (tasa: string | undefined) => `${tasa ?? ''} %`;

/** Impuestos locales: one row per local tax, withheld first, as the node lists them. */
export function renderImpuestosLocales(layout: PdfLayout, node: XmlNode): void {
  layout.section('IMPUESTOS LOCALES');
  const row = layout.table([
    { title: 'Impuesto local', width: 330 },
    { title: 'Tipo', width: 70 },
    { title: 'Tasa', width: 60, align: 'right' },
    { title: 'Importe', width: 80, align: 'right' },
  ]);
  for (const r of childrenNamed(node, 'implocal:RetencionesLocales'))
    row([r.attrs.ImpLocRetenido ?? '', 'Retenido', rate(r.attrs.TasadeRetencion), r.attrs.Importe ?? '']);
  for (const t of childrenNamed(node, 'implocal:TrasladosLocales'))
    row([t.attrs.ImpLocTrasladado ?? '', 'Trasladado', rate(t.attrs.TasadeTraslado), t.attrs.Importe ?? '']);
}

/** Its lines of the totals block: the local taxes are part of Total, so the block shows each of them. */
export function impuestosLocalesTotalLines(node: XmlNode): [string, string][] {
  return [
    ...childrenNamed(node, 'implocal:TrasladosLocales').map((t): [string, string] => [
      `${t.attrs.ImpLocTrasladado} ${rate(t.attrs.TasadeTraslado)} (local)`,
      t.attrs.Importe ?? '0',
    ]),
    ...childrenNamed(node, 'implocal:RetencionesLocales').map((r): [string, string] => [
      `${r.attrs.ImpLocRetenido} ${rate(r.attrs.TasadeRetencion)} retenido (local)`,
      `-${r.attrs.Importe ?? '0'}`,
    ]),
  ];
}

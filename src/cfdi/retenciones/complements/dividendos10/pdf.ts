import { amountIn } from '../../../pdf/format.ts';
import type { PdfLayout } from '../../../pdf/layout.ts';
import { child, type XmlNode } from '../../../xml.ts';

const pesos = (amount: string | undefined) => amount && amountIn('MXN', amount);

/** Complemento de Dividendos 1.0: the dividend or profit distributed and its credits, then the remanente distribuible. */
export function renderDividendos(layout: PdfLayout, node: XmlNode): void {
  layout.section('DIVIDENDOS');
  const d = child(node, 'dividendos:DividOUtil')?.attrs;
  if (d) {
    layout.heading('Dividendos o utilidades distribuidos');
    layout.fields(
      [
        ['Clave del tipo de dividendo o utilidad', d.CveTipDivOUtil],
        ['Tipo de sociedad que distribuye', d.TipoSocDistrDiv],
        ['ISR acreditable retenido en México', pesos(d.MontISRAcredRetMexico)],
        ['ISR acreditable retenido en el extranjero', pesos(d.MontISRAcredRetExtranjero)],
        ['Retención en el extranjero sobre dividendos del extranjero', pesos(d.MontRetExtDivExt)],
        ['ISR acreditable nacional', pesos(d.MontISRAcredNal)],
        ['Dividendo acumulable nacional', pesos(d.MontDivAcumNal)],
        ['Dividendo acumulable extranjero', pesos(d.MontDivAcumExt)],
      ],
      2,
    );
  }
  const r = child(node, 'dividendos:Remanente')?.attrs;
  if (r) {
    layout.heading('Remanente distribuible');
    layout.fields([['Proporción del remanente', r.ProporcionRem ?? 'no expresada']], 2);
  }
}

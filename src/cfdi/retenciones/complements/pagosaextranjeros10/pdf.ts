import type { PdfLayout } from '../../../pdf/layout.ts';
import { child, type XmlNode } from '../../../xml.ts';

/** Complemento de Pagos a extranjeros 1.0: whether the receptor is the beneficial owner, then the payee's data. */
export function renderPagosAExtranjeros(layout: PdfLayout, node: XmlNode): void {
  layout.section('PAGOS A EXTRANJEROS');
  layout.fields([['¿Es el beneficiario efectivo del cobro?', node.attrs.EsBenefEfectDelCobro === 'SI' ? 'Sí' : 'No']], 2);
  const n = child(node, 'pagosaextranjeros:NoBeneficiario')?.attrs;
  if (n) {
    layout.heading('No beneficiario');
    layout.fields([
      ['País de residencia para efectos fiscales', n.PaisDeResidParaEfecFisc],
      ['Concepto del pago (tipo de contribuyente)', n.ConceptoPago],
      ['Descripción del concepto', n.DescripcionConcepto],
    ]);
  }
  const b = child(node, 'pagosaextranjeros:Beneficiario')?.attrs;
  if (b) {
    layout.heading('Beneficiario');
    layout.fields([
      ['Nombre, denominación o razón social', b.NomDenRazSocB],
      ['RFC', b.RFC],
      ['CURP', b.CURP],
      ['Concepto del pago (tipo de contribuyente)', b.ConceptoPago],
      ['Descripción del concepto', b.DescripcionConcepto],
    ]);
  }
}

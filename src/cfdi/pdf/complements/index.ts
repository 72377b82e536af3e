import type { XmlNode } from '../../xml.ts';
import type { PdfLayout, TotalRow } from '../layout.ts';
import { cartaPorteQr, renderCartaPorte } from './cartaporte31.ts';
import { nominaTotals, renderNomina } from './nomina12.ts';
import { renderPagos } from './pagos20.ts';

/**
 * The complements with something to print, in the order their sections follow the conceptos. Each decides its
 * content only and draws through the layout it is lent; a new complement is one more entry.
 */
interface ComplementSection {
  /** The complement's element under cfdi:Complemento; each one present prints its own section. */
  element: string;
  render(layout: PdfLayout, node: XmlNode): void;
  /** The totals block in place of the CFDI's, for the TipoDeComprobante it documents, when the CFDI carries exactly one. */
  totals?: { tipoDeComprobante: string; rows(node: XmlNode, total: string | undefined, moneda: string): TotalRow[] };
  /** Printed after the comprobante's totals rather than before them: a complement that does not document its amounts. */
  afterTotals?: boolean;
  /** A QR code of the complement's own, printed under the CFDI's with its title and what it encodes. */
  qr?(node: XmlNode, fechaTimbrado: string): { title: string; url: string; rows: [string, string][] };
}

export const COMPLEMENT_SECTIONS: ComplementSection[] = [
  { element: 'pago20:Pagos', render: renderPagos },
  { element: 'nomina12:Nomina', render: renderNomina, totals: { tipoDeComprobante: 'N', rows: nominaTotals } },
  { element: 'cartaporte31:CartaPorte', render: renderCartaPorte, afterTotals: true, qr: cartaPorteQr },
];

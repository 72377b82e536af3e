import { openDocument, type Branding } from './pdf/document.ts';
import { none } from './pdf/format.ts';
import { Layout } from './pdf/layout.ts';
import {
  comprobanteSection,
  complementSections,
  conceptosSection,
  footer,
  header,
  informacionGlobalSection,
  relacionadosSection,
  receptorSection,
  serieFolio,
  timbreSection,
  TIPO_TITLES,
  totalsSection,
  trailingComplementSections,
  type PrintedCfdi,
} from './pdf/sections.ts';
import { tfdFromNode } from './tfd.ts';
import { child, parseXml } from './xml.ts';

export { useNativeDeflate } from './pdf/fonts.ts';
export { CANCELLED_MARK } from './pdf/sections.ts';

/**
 * The printed representation of a stamped CFDI (RMF 2.7.1.7; docs/sat-rules.md §5), rendered from the stored XML only:
 * every value on the page is read from the document (descriptions of catalog keys come from SAT's catalogs).
 * Letter size; header and footer with page numbers on every page; long descriptions wrap across lines and pages.
 * The font lives in pdf/fonts.ts, the page and its pagination in pdf/layout.ts, the sections in pdf/sections.ts and
 * the complements' own sections (Pagos 2.0, Nómina 1.2, Carta Porte 3.1, whose second QR goes under the CFDI's) in
 * each complement's pdf.ts (complements/<name>/, listed by the registry); a Pago or a Traslado has no money lines.
 */
export interface PdfOptions {
  /** Test-environment stamp: every page carries "SIN VALIDEZ FISCAL — SANDBOX". */
  sandbox: boolean;
  /** Cancelled with SAT: every page says "CFDI CANCELADO" (the document itself is unchanged). */
  cancelled?: boolean;
  branding?: Branding;
}

/** The body's sections in the order they are printed (the header comes with every new page). */
const SECTIONS = [
  receptorSection,
  comprobanteSection,
  informacionGlobalSection,
  relacionadosSection,
  conceptosSection,
  complementSections,
  totalsSection,
  trailingComplementSections,
  timbreSection,
];

export async function renderCfdiPdf(xml: string, options: PdfOptions): Promise<Uint8Array> {
  const root = parseXml(xml);
  const a = root.attrs;
  const tfdNode = child(child(root, 'cfdi:Complemento') ?? none, 'tfd:TimbreFiscalDigital');
  if (!tfdNode) throw new Error('the CFDI has no TimbreFiscalDigital: only stamped invoices have a printed representation');
  const tfd = tfdFromNode(tfdNode);

  const { doc, fonts, accent, logo } = await openDocument(tfd.uuid, options.branding, {
    title: `CFDI ${tfd.uuid}`,
    subject: `${TIPO_TITLES[a.TipoDeComprobante ?? ''] ?? 'CFDI'} ${serieFolio(a.Serie, a.Folio)}`.trim(),
  });

  const cfdi: PrintedCfdi = {
    root,
    comprobante: a,
    emisor: child(root, 'cfdi:Emisor')?.attrs ?? {},
    receptor: child(root, 'cfdi:Receptor')?.attrs ?? {},
    tfd,
    moneda: a.Moneda ?? 'MXN',
    sandbox: options.sandbox,
    cancelled: options.cancelled,
    logo,
  };
  const layout = new Layout(doc, fonts, accent, (l) => header(l, cfdi));
  layout.newPage();
  for (const section of SECTIONS) section(layout, cfdi);
  footer(layout, cfdi); // last: it prints the page count
  return doc.save({ useObjectStreams: true });
}

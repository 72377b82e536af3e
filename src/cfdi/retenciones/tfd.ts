import { type Tfd, tfdNode } from '../tfd.ts';
import { serializeXml } from '../xml.ts';

const SELLO = /<retenciones:Retenciones\b[^>]*?\sSello="([^"]*)"/;

/** The Sello of a sealed Retenciones: the TFD's SelloCFD (undefined when the document has none). */
export const selloOfRetencion = (sealedXml: string): string | undefined => SELLO.exec(sealedXml)?.[1];

/**
 * The sealed Retenciones with its Timbre Fiscal Digital 1.1 (the same TFD a CFDI gets) as the last child of
 * retenciones:Complemento, which is made when the document has no complement: where a PAC puts it.
 */
export function withTfd(sealedXml: string, tfd: Tfd): string {
  const tfdXml = serializeXml(tfdNode(tfd)).replace(/^<\?xml[^>]*>\n/, '');
  return sealedXml.includes('</retenciones:Complemento>')
    ? sealedXml.replace(/<\/retenciones:Complemento>(?![\s\S]*<\/retenciones:Complemento>)/, `${tfdXml}</retenciones:Complemento>`)
    : sealedXml.replace(/<\/retenciones:Retenciones>\s*$/, `<retenciones:Complemento>${tfdXml}</retenciones:Complemento></retenciones:Retenciones>`);
}

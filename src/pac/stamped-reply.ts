import { tfdFromNode } from '../cfdi/tfd.ts';
import { child, parseXml } from '../cfdi/xml.ts';
import type { StampResult } from './types.ts';

/** The sealed document's Sello: a PAC's stamp is ours only when its TFD's SelloCFD is this. */
export const selloOf = (sealedXml: string): string | undefined => /<cfdi:Comprobante\b[^>]*?\sSello="([^"]*)"/.exec(sealedXml)?.[1];

const NOT_SENT = new Set([
  // the connection refused, the name not resolved
  'ECONNREFUSED',
  'ConnectionRefused',
  'ENOTFOUND',
  'EAI_AGAIN',
  'FailedToOpenSocket',
  // TLS refused before the handshake ended: the request was never written
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A connection refused, a name that does not resolve or a certificate refused: the request never left this process. */
export function refusedBeforeSending(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NOT_SENT.has(code);
}

/** The stamped document from a reply (raw or base64), checked: a TFD for this very document (SelloCFD = our Sello). */
export function readStamp(cfdi: string, sello: string | undefined): StampResult | undefined {
  const xml = cfdi.trimStart().startsWith('<') ? cfdi : Buffer.from(cfdi, 'base64').toString('utf8');
  try {
    const root = parseXml(xml);
    const node = child(child(root, 'cfdi:Complemento') ?? { name: '', attrs: {}, children: [] }, 'tfd:TimbreFiscalDigital');
    if (root.name !== 'cfdi:Comprobante' || !node) return undefined;
    const tfd = tfdFromNode(node);
    if (!/^[0-9A-Fa-f-]{36}$/.test(tfd.uuid) || !tfd.selloSat || (sello !== undefined && tfd.selloCfd !== sello)) return undefined;
    return { ok: true, xml, tfd: { ...tfd, uuid: tfd.uuid.toUpperCase() } };
  } catch {
    return undefined;
  }
}

import { selloOfRetencion } from '../cfdi/retenciones/tfd.ts';
import { tfdFromNode } from '../cfdi/tfd.ts';
import { child, parseXml } from '../cfdi/xml.ts';
import type { StampResult } from './types.ts';

/**
 * What a PAC is asked to stamp: a CFDI 4.0 or a CFDI de Retenciones 2.0, told apart by the root element. Each goes to
 * its own service of the PAC and comes back with the TFD in its own Complemento.
 */
export type DocumentKind = 'cfdi' | 'retencion';

const RETENCION = /^(?:<\?xml[^>]*>\s*)?<retenciones:Retenciones\b/;
const CFDI_SELLO = /<cfdi:Comprobante\b[^>]*?\sSello="([^"]*)"/;
const SHAPE = {
  cfdi: { root: 'cfdi:Comprobante', complemento: 'cfdi:Complemento' },
  retencion: { root: 'retenciones:Retenciones', complemento: 'retenciones:Complemento' },
} as const;

export const documentKindOf = (sealedXml: string): DocumentKind => (RETENCION.test(sealedXml) ? 'retencion' : 'cfdi');

/** The sealed document's Sello: a PAC's stamp is ours only when its TFD's SelloCFD is this. */
export const selloOf = (sealedXml: string): string | undefined =>
  documentKindOf(sealedXml) === 'retencion' ? selloOfRetencion(sealedXml) : CFDI_SELLO.exec(sealedXml)?.[1];

/**
 * The EstatusUUID codes that mean SAT cancelled the UUID (now, or before: "previamente cancelado"). SAT's CFDI service
 * answers 201/202; its cancelaretencion answers 1201/1202, and a PAC may pass on either set for a retención.
 */
export const CANCELLED: Record<DocumentKind, ReadonlySet<string>> = {
  cfdi: new Set(['201', '202']),
  retencion: new Set(['1201', '1202', '201', '202']),
};

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

/**
 * The stamped document from a reply (raw or base64), checked: a document of the kind sent, with a TFD for this very
 * document (SelloCFD = our Sello) in its Complemento.
 */
export function readStamp(reply: string, sello: string | undefined, kind: DocumentKind): StampResult | undefined {
  const xml = reply.trimStart().startsWith('<') ? reply : Buffer.from(reply, 'base64').toString('utf8');
  const shape = SHAPE[kind];
  try {
    const root = parseXml(xml);
    const node = child(child(root, shape.complemento) ?? { name: '', attrs: {}, children: [] }, 'tfd:TimbreFiscalDigital');
    if (root.name !== shape.root || !node) return undefined;
    const tfd = tfdFromNode(node);
    if (!/^[0-9A-Fa-f-]{36}$/.test(tfd.uuid) || !tfd.selloSat || (sello !== undefined && tfd.selloCfd !== sello)) return undefined;
    return { ok: true, xml, tfd: { ...tfd, uuid: tfd.uuid.toUpperCase() } };
  } catch {
    return undefined;
  }
}

import { DOMParser } from '@xmldom/xmldom';
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { ExclusiveCanonicalization } from 'xml-crypto';
import { escapeXml } from '../cfdi/xml.ts';

/**
 * SAT's Descarga Masiva v1.5 (issue 39): Autentica (a WS-Security timestamp signed with the e.firma), SolicitaDescarga
 * {Emitidos,Recibidos}, VerificaSolicitudDescarga and Descargar (each an enveloped XMLDSig over the operation element).
 * Canonicalization is xml-crypto's exclusive c14n; the shapes follow SAT's service descriptions as the public clients
 * (phpcfdi/sat-ws-descarga-masiva) write them. Transport problems throw `DescargaMasivaError` saying whether asking
 * again later can help; SAT's own codes (CodEstatus, EstadoSolicitud, …) are returned for the caller to decide.
 */

export const SAT_DESCARGA_MASIVA_URL = 'https://cfdidescargamasivasolicitud.clouda.sat.gob.mx';
export const SAT_DESCARGA_MASIVA_DOWNLOAD_URL = 'https://cfdidescargamasiva.clouda.sat.gob.mx';

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const DES = 'http://DescargaMasivaTerceros.sat.gob.mx';
const AUTH_NS = 'http://DescargaMasivaTerceros.gob.mx';
const X509_TOKEN = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';
const BASE64_BINARY = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';

const ACTIONS = {
  autentica: `${AUTH_NS}/IAutenticacion/Autentica`,
  emitidos: `${DES}/ISolicitaDescargaService/SolicitaDescargaEmitidos`,
  recibidos: `${DES}/ISolicitaDescargaService/SolicitaDescargaRecibidos`,
  verifica: `${DES}/IVerificaSolicitudDescargaService/VerificaSolicitudDescarga`,
  descargar: `${DES}/IDescargaMasivaTercerosService/Descargar`,
} as const;

/** The tenant's e.firma as `fielSigner` opens it: each signature is audited there. */
export interface DescargaSigner {
  rfc: string;
  certificateDer: Buffer;
  sign(data: string | Buffer, digest: 'sha1' | 'sha256'): Promise<string>;
}

export interface DescargaMasivaOptions {
  /** Base of Autenticacion/Autenticacion.svc, SolicitaDescargaService.svc and VerificaSolicitudDescargaService.svc. */
  url: string;
  /** Base of DescargaMasivaService.svc. */
  downloadUrl: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => Date;
}

/** A call that got no usable answer: `retryable` when asking again later can help (network, HTTP 5xx, 404 pages). */
export class DescargaMasivaError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** What is asked: one direction and kind over a period, with v1.5's filters. Dates are SAT's local `YYYY-MM-DDTHH:mm:ss`. */
export interface DescargaQuery {
  direction: 'issued' | 'received';
  kind: 'xml' | 'metadata';
  desde: string;
  hasta: string;
  tipo?: string;
  /** The counterparty: the emisor of a received request, a receptor of an issued one. */
  rfc?: string;
}

interface SolicitudResult {
  codEstatus: string;
  mensaje: string;
  idSolicitud?: string;
}

interface VerificacionResult {
  codEstatus: string;
  mensaje: string;
  estadoSolicitud?: number;
  codigoEstadoSolicitud?: string;
  numeroCfdis: number;
  paquetes: string[];
}

interface DescargaResult {
  codEstatus: string;
  mensaje: string;
  paquete?: Buffer;
}

export interface DescargaMasivaClient {
  /** A live token: the one held until it expires, else a new Autentica. */
  token(): Promise<string>;
  solicita(query: DescargaQuery): Promise<SolicitudResult>;
  verifica(idSolicitud: string): Promise<VerificacionResult>;
  descargar(idPaquete: string): Promise<DescargaResult>;
}

const parser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false });
const c14n = (node: Element) => new ExclusiveCanonicalization().process(node, {}) as string;
const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('base64');
const parseDom = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');

/** The query as SolicitaDescarga's attributes and children (v1.5: a received CFDI request asks only vigentes). */
function solicitudOf(
  rfc: string,
  q: DescargaQuery,
): { op: 'SolicitaDescargaEmitidos' | 'SolicitaDescargaRecibidos'; attrs: Record<string, string>; children: string } {
  const attrs: Record<string, string> = {
    FechaInicial: q.desde,
    FechaFinal: q.hasta,
    RfcSolicitante: rfc,
    TipoSolicitud: q.kind === 'xml' ? 'CFDI' : 'Metadata',
    EstadoComprobante: q.direction === 'received' && q.kind === 'xml' ? 'Vigente' : 'Todos',
  };
  if (q.tipo) attrs.TipoComprobante = q.tipo;
  if (q.direction === 'received') {
    attrs.RfcReceptor = rfc;
    if (q.rfc) attrs.RfcEmisor = q.rfc;
    return { op: 'SolicitaDescargaRecibidos', attrs, children: '' };
  }
  attrs.RfcEmisor = rfc;
  const children = q.rfc ? `<des:RfcReceptores><des:RfcReceptor>${escapeXml(q.rfc)}</des:RfcReceptor></des:RfcReceptores>` : '';
  return { op: 'SolicitaDescargaEmitidos', attrs, children };
}

const attributes = (a: Record<string, string>) =>
  Object.keys(a)
    .sort()
    .map((k) => ` ${k}="${escapeXml(a[k]!)}"`)
    .join('');

export function createDescargaMasivaClient(signer: DescargaSigner, o: DescargaMasivaOptions): DescargaMasivaClient {
  const now = o.now ?? (() => new Date());
  const doFetch = o.fetch ?? fetch;
  const certB64 = signer.certificateDer.toString('base64');
  const cert = new X509Certificate(signer.certificateDer);
  let held: { value: string; expires: number } | undefined;

  /** SignedInfo over one digest, signed rsa-sha1 over its exclusive c14n: the `<Signature>` element. */
  async function signature(digest: string, uri: string, keyInfo: string): Promise<string> {
    const inner = `<CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></CanonicalizationMethod><SignatureMethod Algorithm="${DSIG}rsa-sha1"></SignatureMethod><Reference URI="${uri}"><Transforms><Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></Transform></Transforms><DigestMethod Algorithm="${DSIG}sha1"></DigestMethod><DigestValue>${digest}</DigestValue></Reference>`;
    const signedInfo = c14n(parseDom(`<SignedInfo xmlns="${DSIG}">${inner}</SignedInfo>`).documentElement);
    const value = await signer.sign(signedInfo, 'sha1');
    return `<Signature xmlns="${DSIG}"><SignedInfo>${inner}</SignedInfo><SignatureValue>${value}</SignatureValue>${keyInfo}</Signature>`;
  }

  async function post(base: string, path: string, action: string, body: string, token?: string): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${action}"` };
    if (token) headers.Authorization = `WRAP access_token="${token}"`;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(`${base.replace(/\/$/, '')}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(o.timeoutMs ?? 30_000) });
      text = await res.text();
    } catch (err) {
      throw new DescargaMasivaError(`Descarga Masiva unreachable: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = res.headers.get('content-type')?.includes('xml') ? parser.parse(text)?.Envelope : undefined;
    } catch {
      parsed = undefined;
    }
    const fault = (parsed?.Body as Record<string, unknown> | undefined)?.Fault as Record<string, unknown> | undefined;
    if (fault) {
      const code = String(typeof fault.faultcode === 'object' ? ((fault.faultcode as Record<string, unknown>)['#text'] ?? '') : (fault.faultcode ?? ''));
      const reason = fault.faultstring;
      const message = typeof reason === 'object' ? String((reason as Record<string, unknown>)['#text'] ?? '') : String(reason ?? '');
      // WS-Security refused the e.firma's signature (a revoked or expired FIEL, a clock far off): asking again does not help.
      const security = /InvalidSecurity/.test(code);
      throw new DescargaMasivaError(`SAT SOAP fault ${code}: ${message}`, !security, code.replace(/^.*:/, ''));
    }
    if (res.status !== 200 || !parsed)
      throw new DescargaMasivaError(
        `Descarga Masiva answered HTTP ${res.status} without a SOAP reply`,
        res.status >= 500 || res.status === 404 || res.status === 429,
        `HTTP ${res.status}`,
      );
    return parsed;
  }

  async function authenticate(): Promise<string> {
    const created = now();
    const expires = new Date(created.getTime() + 300_000);
    const tsInner = `<u:Created>${created.toISOString()}</u:Created><u:Expires>${expires.toISOString()}</u:Expires>`;
    const tokenId = `uuid-${randomUUID()}-1`;
    const unsigned = `<s:Envelope xmlns:s="${SOAP_ENV}" xmlns:u="${WSU}"><s:Header><o:Security xmlns:o="${WSSE}" s:mustUnderstand="1"><u:Timestamp u:Id="_0">${tsInner}</u:Timestamp><o:BinarySecurityToken u:Id="${tokenId}" ValueType="${X509_TOKEN}" EncodingType="${BASE64_BINARY}">${certB64}</o:BinarySecurityToken></o:Security></s:Header><s:Body><Autentica xmlns="${AUTH_NS}"/></s:Body></s:Envelope>`;
    const timestamp = parseDom(unsigned).getElementsByTagNameNS(WSU, 'Timestamp')[0]!;
    const keyInfo = `<KeyInfo><o:SecurityTokenReference><o:Reference ValueType="${X509_TOKEN}" URI="#${tokenId}"/></o:SecurityTokenReference></KeyInfo>`;
    const sig = await signature(sha1(c14n(timestamp)), '#_0', keyInfo);
    const body = unsigned.replace('</o:Security>', `${sig}</o:Security>`);
    const reply = await post(o.url, '/Autenticacion/Autenticacion.svc', ACTIONS.autentica, body);
    const result = ((reply.Body as Record<string, unknown>)?.AutenticaResponse as Record<string, unknown> | undefined)?.AutenticaResult;
    if (typeof result !== 'string' || !result) throw new DescargaMasivaError('Autentica answered without a token', true);
    // SAT's tokens live five minutes from Created; a minute's margin keeps one from expiring in flight.
    held = { value: result, expires: created.getTime() + 240_000 };
    return result;
  }

  async function token(): Promise<string> {
    if (held && held.expires > now().getTime()) return held.value;
    return authenticate();
  }

  /** An operation element signed in place (Reference URI="": the element without its Signature), sent with the token. */
  async function operation(base: string, path: string, action: string, op: string, inner: string, attrs: Record<string, string>, children = '') {
    const element = `<des:${op} xmlns:des="${DES}"><des:${inner}${attributes(attrs)}>${children}</des:${inner}></des:${op}>`;
    const digest = sha1(c14n(parseDom(element).documentElement));
    const issuer = cert.issuer.split('\n').reverse().join(',');
    const keyInfo = `<KeyInfo><X509Data><X509IssuerSerial><X509IssuerName>${escapeXml(issuer)}</X509IssuerName><X509SerialNumber>${BigInt(`0x${cert.serialNumber}`)}</X509SerialNumber></X509IssuerSerial><X509Certificate>${certB64}</X509Certificate></X509Data></KeyInfo>`;
    const sig = await signature(digest, '', keyInfo);
    const signed = element.replace(`</des:${inner}>`, `${sig}</des:${inner}>`).replace(` xmlns:des="${DES}"`, '');
    const body = `<s:Envelope xmlns:s="${SOAP_ENV}" xmlns:des="${DES}" xmlns:xd="${DSIG}"><s:Header/><s:Body>${signed}</s:Body></s:Envelope>`;
    // A token that expired on SAT's side (300 "Usuario No Válido") is renewed once.
    for (let attempt = 0; ; attempt++) {
      const reply = await post(base, path, action, body, await token());
      const code = codeOf(reply, op);
      if (code !== '300' || attempt > 0) return reply;
      held = undefined;
    }
  }

  const resultOf = (reply: Record<string, unknown>, op: string) =>
    ((reply.Body as Record<string, unknown>)?.[`${op}Response`] as Record<string, unknown> | undefined)?.[`${op}Result`] as Record<string, unknown> | undefined;
  const headerOf = (reply: Record<string, unknown>) => (reply.Header as Record<string, unknown> | undefined)?.respuesta as Record<string, unknown> | undefined;
  function codeOf(reply: Record<string, unknown>, op: string): string | undefined {
    const r = op === 'PeticionDescargaMasivaTercerosEntrada' ? headerOf(reply) : resultOf(reply, op);
    return r && typeof r.CodEstatus === 'string' ? r.CodEstatus : undefined;
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : '');

  return {
    token,
    async solicita(query) {
      const { op, attrs, children } = solicitudOf(signer.rfc, query);
      const action = op === 'SolicitaDescargaEmitidos' ? ACTIONS.emitidos : ACTIONS.recibidos;
      const r = resultOf(await operation(o.url, '/SolicitaDescargaService.svc', action, op, 'solicitud', attrs, children), op);
      if (!r) throw new DescargaMasivaError(`${op} answered without a result`, true);
      return { codEstatus: text(r.CodEstatus), mensaje: text(r.Mensaje), idSolicitud: text(r.IdSolicitud) || undefined };
    },
    async verifica(idSolicitud) {
      const op = 'VerificaSolicitudDescarga';
      const reply = await operation(o.url, '/VerificaSolicitudDescargaService.svc', ACTIONS.verifica, op, 'solicitud', {
        IdSolicitud: idSolicitud,
        RfcSolicitante: signer.rfc,
      });
      const r = resultOf(reply, op);
      if (!r) throw new DescargaMasivaError(`${op} answered without a result`, true);
      const ids = r.IdsPaquetes;
      const paquetes = (Array.isArray(ids) ? ids : ids === undefined ? [] : [ids]).map(text).filter(Boolean);
      const estado = text(r.EstadoSolicitud);
      return {
        codEstatus: text(r.CodEstatus),
        mensaje: text(r.Mensaje),
        estadoSolicitud: estado ? Number(estado) : undefined,
        codigoEstadoSolicitud: text(r.CodigoEstadoSolicitud) || undefined,
        numeroCfdis: Number(text(r.NumeroCFDIs) || 0),
        paquetes,
      };
    },
    async descargar(idPaquete) {
      const op = 'PeticionDescargaMasivaTercerosEntrada';
      const reply = await operation(o.downloadUrl, '/DescargaMasivaService.svc', ACTIONS.descargar, op, 'peticionDescarga', {
        IdPaquete: idPaquete,
        RfcSolicitante: signer.rfc,
      });
      const h = headerOf(reply);
      if (!h) throw new DescargaMasivaError('Descargar answered without its status header', true);
      const body = (reply.Body as Record<string, unknown>)?.RespuestaDescargaMasivaTercerosSalida as Record<string, unknown> | undefined;
      const paquete = text(body?.Paquete).replace(/\s/g, '');
      return { codEstatus: text(h.CodEstatus), mensaje: text(h.Mensaje), paquete: paquete ? Buffer.from(paquete, 'base64') : undefined };
    },
  };
}

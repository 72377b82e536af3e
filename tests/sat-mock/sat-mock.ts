import { DOMParser } from '@xmldom/xmldom';
import { createHash, randomUUID, verify as verifySignature, X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExclusiveCanonicalization } from 'xml-crypto';
import { zipFiles } from './zip.ts';

/**
 * A local stand-in for SAT's received-CFDI services (issue 39, build item 9), on 127.0.0.1 with a port from the kernel:
 * Descarga Masiva v1.5 (Autentica, SolicitaDescarga{Emitidos,Recibidos,Folio}, VerificaSolicitudDescarga, Descargar),
 * ConsultaCFDIService, the certificate repository (rccf) and the Lista 69-B CSV. Shapes and codes follow the public
 * service descriptions as the phpcfdi/nodecfdi clients and their fixtures show them; README.md here lists each source.
 * Everything a test scripts goes through `control`; what the mock saw is kept there too.
 */

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const DES = 'http://DescargaMasivaTerceros.sat.gob.mx';
const AUTH_NS = 'http://DescargaMasivaTerceros.gob.mx';
const CFDI = 'http://www.sat.gob.mx/cfd/4';
const TFD = 'http://www.sat.gob.mx/TimbreFiscalDigital';
const SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';

const ACTIONS = {
  autentica: 'http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica',
  emitidos: 'http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaEmitidos',
  recibidos: 'http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaRecibidos',
  folio: 'http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaFolio',
  verifica: 'http://DescargaMasivaTerceros.sat.gob.mx/IVerificaSolicitudDescargaService/VerificaSolicitudDescarga',
  descargar: 'http://DescargaMasivaTerceros.sat.gob.mx/IDescargaMasivaTercerosService/Descargar',
  consulta: 'http://tempuri.org/IConsultaCFDIService/Consulta',
} as const;

/** A stamped CFDI SAT knows: its XML as given, and what SAT's records add (cancellation, a third party). */
export interface SatDocument {
  xml: string;
  /** Set when SAT has it cancelled: `FechaCancelacion` of the metadata, `Estado` Cancelado in the consultation. */
  fechaCancelacion?: string;
  /** A third party the CFDI was issued on behalf of (the `_tercero.txt` of a metadata package). */
  tercero?: { rfc: string; nombre: string };
}

/**
 * How VerificaSolicitudDescarga answers a request poll after poll: `estados[i]` at the i-th poll (the last one holds).
 * On 3 (Terminada) the mock decides like SAT from the result: none → 5 with 5004, more than the limit → 5 with 5003,
 * else 3 with `packages` packages (at most one per CFDI). A 5 in the list is a rejection with `codigo` (default 5000).
 */
export interface VerifyScenario {
  estados: number[];
  packages?: number;
  codigo?: string;
}

export const SCENARIOS = {
  finished: (packages = 1, pollsBefore = 2): VerifyScenario => ({ estados: [...[1, 2].slice(0, pollsBefore), 3], packages }),
  stuck: (): VerifyScenario => ({ estados: [1] }),
  rejectedAfter: (polls: number, codigo = '5000'): VerifyScenario => ({ estados: [...Array(polls).fill(1), 5], codigo }),
};

interface Solicitud {
  id: string;
  rfc: string;
  direction: 'emitidos' | 'recibidos' | 'folio';
  tipo: 'CFDI' | 'Metadata';
  period: string;
  documents: SatDocument[];
  scenario: VerifyScenario;
  createdAt: number;
  polls: number;
  packages: Map<string, Buffer>;
  downloads: Map<string, number>;
}

interface ListedTaxpayer {
  rfc: string;
  nombre: string;
  situacion: 'Presunto' | 'Definitivo' | 'Desvirtuado' | 'Sentencia Favorable';
}

export interface SatMockOptions {
  documents?: SatDocument[];
  tokenSeconds?: number;
  now?: () => Date;
  /** Extra certificates for the repository (e.g. the sandbox's own stamping certificate): NoCertificado → DER. */
  certificates?: Map<string, Buffer>;
}

/** SAT's stamping certificates the project keeps (tests/fixtures/csd/sat-timbrado), by NoCertificadoSAT. */
function satStampingCertificates(): Map<string, Buffer> {
  const dir = join(import.meta.dir, '..', 'fixtures', 'csd', 'sat-timbrado');
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.cer'))
      .map((f) => [f.slice(0, -4), readFileSync(join(dir, f))]),
  );
}

const xmlHeader = { 'content-type': 'text/xml; charset=utf-8' };
const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function envelope(body: string, header = ''): string {
  return `<s:Envelope xmlns:s="${SOAP_ENV}">${header ? `<s:Header>${header}</s:Header>` : ''}<s:Body xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">${body}</s:Body></s:Envelope>`;
}

/** WCF's answer to a message whose security does not verify (phpcfdi's authenticate/response-with-error.xml). */
function invalidSecurity(): Response {
  return new Response(
    `<s:Envelope xmlns:s="${SOAP_ENV}"><s:Body><s:Fault><faultcode xmlns:a="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">a:InvalidSecurity</faultcode><faultstring xml:lang="en-US">An error occurred when verifying security for the message.</faultstring></s:Fault></s:Body></s:Envelope>`,
    { status: 500, headers: xmlHeader },
  );
}

const elements = (root: Document | Element, ns: string, local: string): Element[] => Array.from(root.getElementsByTagNameNS(ns, local));

/** An e.firma, not a CSD: SAT's FIEL certificates carry the e-mail protection / client authentication purposes, CSDs none. */
function isFiel(cert: X509Certificate): boolean {
  const purposes = cert.keyUsage ?? [];
  return purposes.includes('1.3.6.1.5.5.7.3.2') || purposes.includes('1.3.6.1.5.5.7.3.4');
}

/** The holder's RFC: the first one in x500UniqueIdentifier ("EKU9003173C9 / VADA800927DJ3" for a company). */
function certificateRfc(cert: X509Certificate): string {
  return /x500UniqueIdentifier=([A-ZÑ&0-9]{12,13})/.exec(cert.subject)?.[1] ?? '';
}

/**
 * XMLDSig as SAT's services check it: RSA-SHA1 over the exclusive-c14n SignedInfo, and its SHA-1 digest equal to the
 * exclusive-c14n of what it signs, either the element whose u:Id the Reference names (the Timestamp) or, for
 * URI="", the operation element without its Signature (the clients' practice SAT accepts).
 */
function signatureVerifies(doc: Document, signed: Element, cert: X509Certificate): boolean {
  const signature = elements(doc, DSIG, 'Signature')[0];
  if (!signature) return false;
  const signedInfo = elements(signature, DSIG, 'SignedInfo')[0];
  const id = signed.getAttributeNS(WSU, 'Id');
  if ((elements(signature, DSIG, 'Reference')[0]?.getAttribute('URI') ?? '') !== (id ? `#${id}` : '')) return false;
  const digest = elements(signature, DSIG, 'DigestValue')[0]?.textContent ?? '';
  const value = elements(signature, DSIG, 'SignatureValue')[0]?.textContent ?? '';
  if (!signedInfo) return false;
  const c14n = new ExclusiveCanonicalization();
  const target = signed.cloneNode(true) as Element;
  for (const s of elements(target, DSIG, 'Signature')) s.parentNode?.removeChild(s);
  const computed = createHash('sha1')
    .update(c14n.process(target, {}) as string)
    .digest('base64');
  if (computed !== digest.trim()) return false;
  try {
    return verifySignature('sha1', Buffer.from(c14n.process(signedInfo, {}) as string), cert.publicKey, Buffer.from(value.replace(/\s/g, ''), 'base64'));
  } catch {
    return false;
  }
}

function certificateOf(b64: string | null | undefined): X509Certificate | undefined {
  if (!b64) return undefined;
  try {
    return new X509Certificate(Buffer.from(b64.replace(/\s/g, ''), 'base64'));
  } catch {
    return undefined;
  }
}

/** What the metadata, the consultation and the filters read from a stamped CFDI 4.0. */
function facts(d: SatDocument) {
  const doc = new DOMParser().parseFromString(d.xml, 'text/xml');
  const c = doc.documentElement;
  const emisor = elements(doc, CFDI, 'Emisor')[0];
  const receptor = elements(doc, CFDI, 'Receptor')[0];
  const tfd = elements(doc, TFD, 'TimbreFiscalDigital')[0];
  return {
    uuid: (tfd?.getAttribute('UUID') ?? '').toUpperCase(),
    rfcEmisor: emisor?.getAttribute('Rfc') ?? '',
    nombreEmisor: emisor?.getAttribute('Nombre') ?? '',
    rfcReceptor: receptor?.getAttribute('Rfc') ?? '',
    nombreReceptor: receptor?.getAttribute('Nombre') ?? '',
    rfcPac: tfd?.getAttribute('RfcProvCertif') ?? '',
    fecha: c?.getAttribute('Fecha') ?? '',
    fechaTimbrado: tfd?.getAttribute('FechaTimbrado') ?? '',
    total: c?.getAttribute('Total') ?? '',
    tipo: c?.getAttribute('TipoDeComprobante') ?? '',
  };
}

const METADATA_HEADER =
  'Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion';

/** A metadata record as SAT writes it: `~` between fields, dates with a space, Estatus 1 vigente / 0 cancelado. */
function metadataLine(d: SatDocument): string {
  const f = facts(d);
  const date = (s: string) => s.replace('T', ' ');
  return [
    f.uuid,
    f.rfcEmisor,
    f.nombreEmisor,
    f.rfcReceptor,
    f.nombreReceptor,
    f.rfcPac,
    date(f.fecha),
    date(f.fechaTimbrado),
    f.total,
    f.tipo,
    d.fechaCancelacion ? '0' : '1',
    d.fechaCancelacion ? date(d.fechaCancelacion) : '',
  ].join('~');
}

/** Characters windows-1250 puts where Latin-1 does (the accented vowels, ü, ×, …); others become '?'. */
const CP1250_SAME_AS_LATIN1 = new Set([
  0xa0, 0xa4, 0xa6, 0xa7, 0xa8, 0xa9, 0xab, 0xac, 0xad, 0xae, 0xb0, 0xb1, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xbb, 0xc1, 0xc2, 0xc4, 0xc7, 0xc9, 0xcb, 0xcd, 0xce,
  0xd3, 0xd4, 0xd6, 0xd7, 0xda, 0xdc, 0xdd, 0xdf, 0xe1, 0xe2, 0xe4, 0xe7, 0xe9, 0xeb, 0xed, 0xee, 0xf3, 0xf4, 0xf6, 0xf7, 0xfa, 0xfc, 0xfd,
]);
function windows1250(text: string): Buffer {
  return Buffer.from(
    Array.from(text, (ch) => {
      const code = ch.codePointAt(0)!;
      return code < 0x80 || CP1250_SAME_AS_LATIN1.has(code) ? code : 0x3f;
    }),
  );
}

const csvField = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export function startSatMock(options: SatMockOptions = {}) {
  const now = options.now ?? (() => new Date());
  const certificates = new Map([...satStampingCertificates(), ...(options.certificates ?? new Map())]);
  const control = {
    documents: [...(options.documents ?? [])],
    tokenSeconds: options.tokenSeconds ?? 300,
    /** The verify scenario a new request gets; change one request's with `solicitudes.get(id).scenario`. */
    scenario: SCENARIOS.finished(1) as VerifyScenario,
    /** Records per request before 5003 (SAT: 200,000 CFDI, 1,000,000 metadata). */
    limits: { CFDI: 200_000, Metadata: 1_000_000 },
    /** A request not finished this long after it was made verifies as 6 (Vencida); clients report a three-day life. */
    requestLifetimeSeconds: 259_200,
    /** The next N Autentica calls answer HTTP 500 (as SAT did in 2025-08), or a SOAP InvalidSecurity fault. */
    authHttp500: 0,
    authFaults: 0,
    /** The next N verify / download calls answer 404 "Error No Controlado". */
    verify404: 0,
    download404: 0,
    /** ConsultaCFDIService answers per UUID (upper case); unset UUIDs follow `documents`, unknown ones are not found. */
    consulta: new Map<string, { Estado?: string; EsCancelable?: string; EstatusCancelacion?: string; ValidacionEFOS?: string }>(),
    list69b: [] as ListedTaxpayer[],
    solicitudes: new Map<string, Solicitud>(),
    tokens: new Map<string, { rfc: string; expires: number }>(),
    /** Every call, in order: service, SOAPAction and the answer's CodEstatus (or HTTP status). */
    calls: [] as { service: string; action: string; code: string }[],
  };
  /** How many accepted requests each period had: the third identical one is refused for life (5002). */
  const periods = new Map<string, number>();

  const note = (service: string, action: string, code: string) => control.calls.push({ service, action, code });

  function parse(text: string): Document | undefined {
    try {
      const doc = new DOMParser({ errorHandler: { warning: () => {}, error: () => {} } }).parseFromString(text, 'text/xml');
      return doc.documentElement ? doc : undefined;
    } catch {
      return undefined;
    }
  }

  function autentica(doc: Document): Response {
    const token = elements(doc, 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd', 'BinarySecurityToken')[0];
    const timestamp = elements(doc, WSU, 'Timestamp')[0];
    const cert = certificateOf(token?.textContent);
    const t = now().getTime();
    const valid =
      cert &&
      timestamp &&
      isFiel(cert) &&
      new Date(cert.validFrom).getTime() <= t &&
      t <= new Date(cert.validTo).getTime() &&
      signatureVerifies(doc, timestamp, cert) &&
      Date.parse(elements(timestamp, WSU, 'Expires')[0]?.textContent ?? '') > t;
    if (!valid || control.authFaults > 0) {
      if (control.authFaults > 0) control.authFaults--;
      note('autenticacion', 'Autentica', 'InvalidSecurity');
      return invalidSecurity();
    }
    const value = `${Buffer.from(JSON.stringify({ nbf: Math.floor(t / 1000), exp: Math.floor(t / 1000) + control.tokenSeconds })).toString('base64url')}.${randomUUID()}`;
    control.tokens.set(value, { rfc: certificateRfc(cert), expires: t + control.tokenSeconds * 1000 });
    note('autenticacion', 'Autentica', 'token');
    const created = new Date(t).toISOString();
    const expires = new Date(t + 300_000).toISOString();
    return new Response(
      `<s:Envelope xmlns:s="${SOAP_ENV}" xmlns:u="${WSU}"><s:Header><o:Security xmlns:o="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" s:mustUnderstand="1"><u:Timestamp u:Id="_0"><u:Created>${created}</u:Created><u:Expires>${expires}</u:Expires></u:Timestamp></o:Security></s:Header><s:Body><AutenticaResponse xmlns="${AUTH_NS}"><AutenticaResult>${value}</AutenticaResult></AutenticaResponse></s:Body></s:Envelope>`,
      { headers: xmlHeader },
    );
  }

  /** The token of `Authorization: WRAP access_token="…"`, if live: SAT's 300 "Usuario No Válido" otherwise. */
  function tokenRfc(req: Request): string | undefined {
    const value = /^WRAP access_token="([^"]+)"$/.exec(req.headers.get('authorization') ?? '')?.[1];
    const token = value ? control.tokens.get(value) : undefined;
    return token && token.expires > now().getTime() ? token.rfc : undefined;
  }

  /** The operation's signed element checked against the request's FIEL: the SAT code that refuses it, or undefined. */
  function signatureProblem(doc: Document, operation: Element, rfcSolicitante: string, tokenHolder: string): [string, string] | undefined {
    const cert = certificateOf(elements(operation, DSIG, 'X509Certificate')[0]?.textContent);
    if (!cert || !elements(operation, DSIG, 'Signature')[0]) return ['302', 'Sello Mal Formado o Inválido'];
    if (!isFiel(cert)) return ['305', 'Certificado Inválido'];
    const t = now().getTime();
    if (t < new Date(cert.validFrom).getTime() || t > new Date(cert.validTo).getTime()) return ['304', 'Certificado Revocado o Caduco'];
    if (!signatureVerifies(doc, operation, cert)) return ['302', 'Sello Mal Formado o Inválido'];
    if (certificateRfc(cert) !== rfcSolicitante || tokenHolder !== rfcSolicitante) return ['303', 'Sello no corresponde con RfcSolicitante'];
    return undefined;
  }

  function solicita(doc: Document, action: 'emitidos' | 'recibidos' | 'folio', holder: string): Response {
    const name = { emitidos: 'SolicitaDescargaEmitidos', recibidos: 'SolicitaDescargaRecibidos', folio: 'SolicitaDescargaFolio' }[action];
    const answer = (code: string, mensaje: string, id = '') => {
      note('solicita', name, code);
      return new Response(
        envelope(
          `<${name}Response xmlns="${DES}"><${name}Result${id ? ` IdSolicitud="${id}"` : ''} CodEstatus="${code}" Mensaje="${attr(mensaje)}"/></${name}Response>`,
        ),
        { headers: xmlHeader },
      );
    };
    const operation = elements(doc, DES, name)[0];
    const s = operation && elements(operation, DES, 'solicitud')[0];
    if (!operation || !s) return answer('301', 'XML Mal Formado');
    const a = (n: string) => s.getAttribute(n) ?? '';
    const rfc = a('RfcSolicitante');
    const refused = signatureProblem(doc, operation, rfc, holder);
    if (refused) return answer(...refused);
    const tipo = a('TipoSolicitud') === 'Metadata' ? 'Metadata' : 'CFDI';
    const receptores = elements(s, DES, 'RfcReceptor').map((e) => e.textContent ?? '');
    const emisores = elements(s, DES, 'RfcEmisor').map((e) => e.textContent ?? '');
    let matches: SatDocument[];
    if (action === 'folio') {
      const folio = a('Folio').toUpperCase();
      if (!folio) return answer('301', 'XML Mal Formado: el Folio es requerido');
      const filters = ['RfcEmisor', 'RfcReceptor', 'TipoComprobante', 'EstadoComprobante', 'Complemento', 'FechaInicial', 'FechaFinal'].filter((n) =>
        s.hasAttribute(n),
      );
      if (filters.length) return answer('301', `XML Mal Formado: una solicitud por Folio no admite ${filters.join(', ')}`);
      matches = control.documents.filter((d) => {
        const f = facts(d);
        return f.uuid === folio && (f.rfcEmisor === rfc || f.rfcReceptor === rfc);
      });
    } else {
      const inicial = a('FechaInicial');
      const final = a('FechaFinal');
      const estado = a('EstadoComprobante') || 'Todos';
      const from = Date.parse(`${inicial}Z`);
      const to = Date.parse(`${final}Z`);
      if (Number.isNaN(from) || Number.isNaN(to)) return answer('301', 'XML Mal Formado: FechaInicial y FechaFinal son requeridas');
      if (from >= to) return answer('301', 'XML Mal Formado: La fecha inicial debe ser menor a la fecha final');
      const today = now();
      const floor = Date.UTC(today.getUTCFullYear() - 6, today.getUTCMonth(), today.getUTCDate());
      if (from < floor) return answer('301', 'XML Mal Formado: La fecha inicial no puede ser anterior a seis años');
      if (action === 'recibidos') {
        if (a('RfcReceptor') !== rfc) return answer('301', 'XML Mal Formado: RfcReceptor debe ser el RfcSolicitante');
        const emisor = [...emisores, ...(s.hasAttribute('RfcEmisor') ? [a('RfcEmisor')] : [])];
        if (emisor.length > 1) return answer('301', 'XML Mal Formado: solo se admite un RfcEmisor');
        if (tipo === 'CFDI' && estado !== 'Vigente')
          return answer('301', 'XML Mal Formado:La solicitud de descarga no es válida. No se permite la descarga de xml que se encuentren cancelados.');
      } else {
        if (a('RfcEmisor') !== rfc) return answer('301', 'XML Mal Formado: RfcEmisor debe ser el RfcSolicitante');
        if (receptores.length > 5) return answer('301', 'XML Mal Formado: a lo más cinco RfcReceptor');
      }
      const emisorFilter = action === 'recibidos' ? (emisores[0] ?? (a('RfcEmisor') || undefined)) : rfc;
      matches = control.documents.filter((d) => {
        const f = facts(d);
        const at = Date.parse(`${f.fecha}Z`);
        if (at < from || at > to) return false;
        if (action === 'recibidos' && f.rfcReceptor !== rfc) return false;
        if (emisorFilter && f.rfcEmisor !== emisorFilter) return false;
        if (action === 'emitidos' && receptores.length && !receptores.includes(f.rfcReceptor)) return false;
        if (a('TipoComprobante') && f.tipo !== a('TipoComprobante')) return false;
        if (estado === 'Vigente' && d.fechaCancelacion) return false;
        if (estado === 'Cancelado' && !d.fechaCancelacion) return false;
        return true;
      });
    }
    // The period is the request as SAT sees it, signature aside: direction, type, dates, every filter.
    const period = [action, ...Array.from(s.attributes, (x) => `${x.name}=${x.value}`).sort(), ...receptores, ...emisores].join('|');
    const seen = periods.get(period) ?? 0;
    if (seen >= 2) return answer('5002', 'Se han agotado las solicitudes de por vida');
    periods.set(period, seen + 1);
    const id = randomUUID();
    control.solicitudes.set(id, {
      id,
      rfc,
      direction: action,
      tipo,
      period,
      documents: matches,
      scenario: structuredClone(control.scenario),
      createdAt: now().getTime(),
      polls: 0,
      packages: new Map(),
      downloads: new Map(),
    });
    return answer('5000', 'Solicitud Aceptada', id);
  }

  /** The packages of a finished request: CFDI as `<UUID>.xml`, metadata as `<IdPaquete>.txt` plus `<IdSolicitud>_tercero.txt`. */
  function buildPackages(r: Solicitud, count: number): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (let p = 0; p < count; p++) {
      const id = `${r.id}_${String(p + 1).padStart(2, '0')}`;
      const mine = r.documents.filter((_, i) => i % count === p);
      if (r.tipo === 'CFDI') {
        out.set(id, zipFiles(mine.map((d) => ({ name: `${facts(d).uuid}.xml`, data: d.xml }))));
      } else {
        const files = [{ name: `${id}.txt`, data: [METADATA_HEADER, ...mine.map(metadataLine)].join('\r\n') + '\r\n' }];
        if (p === 0) {
          const terceros = r.documents.filter((d) => d.tercero).map((d) => `${facts(d).uuid}~${d.tercero!.rfc}~${d.tercero!.nombre}`);
          files.push({ name: `${r.id}_tercero.txt`, data: ['Uuid~RfcACuentaTerceros~NombreACuentaTerceros', ...terceros].join('\r\n') + '\r\n' });
        }
        out.set(id, zipFiles(files));
      }
    }
    return out;
  }

  function verifica(doc: Document, holder: string): Response {
    const answer = (o: { code: string; mensaje: string; estado?: number; codigo?: string; numero?: number; paquetes?: string[] }) => {
      note('verifica', 'VerificaSolicitudDescarga', o.estado === undefined ? o.code : `${o.code}/${o.estado}/${o.codigo}`);
      const state = o.estado === undefined ? '' : ` EstadoSolicitud="${o.estado}" CodigoEstadoSolicitud="${o.codigo}" NumeroCFDIs="${o.numero ?? 0}"`;
      const ids = (o.paquetes ?? []).map((p) => `<IdsPaquetes>${p}</IdsPaquetes>`).join('');
      return new Response(
        envelope(
          `<VerificaSolicitudDescargaResponse xmlns="${DES}"><VerificaSolicitudDescargaResult CodEstatus="${o.code}"${state} Mensaje="${attr(o.mensaje)}">${ids}</VerificaSolicitudDescargaResult></VerificaSolicitudDescargaResponse>`,
        ),
        { headers: xmlHeader },
      );
    };
    const operation = elements(doc, DES, 'VerificaSolicitudDescarga')[0];
    const s = operation && elements(operation, DES, 'solicitud')[0];
    if (!operation || !s) return answer({ code: '301', mensaje: 'XML Mal Formado' });
    const refused = signatureProblem(doc, operation, s.getAttribute('RfcSolicitante') ?? '', holder);
    if (refused) return answer({ code: refused[0], mensaje: refused[1] });
    if (control.verify404 > 0) {
      control.verify404--;
      return answer({ code: '404', mensaje: 'Error No Controlado' });
    }
    const r = control.solicitudes.get(s.getAttribute('IdSolicitud') ?? '');
    if (!r || r.rfc !== s.getAttribute('RfcSolicitante')) return answer({ code: '5004', mensaje: 'No se encontró la solicitud' });
    const estados = r.scenario.estados;
    let estado = estados[Math.min(r.polls, estados.length - 1)] ?? 1;
    r.polls++;
    const ok = { code: '5000', mensaje: 'Solicitud Aceptada' };
    if ((estado === 1 || estado === 2) && now().getTime() - r.createdAt > control.requestLifetimeSeconds * 1000) estado = 6;
    if (estado !== 3) return answer({ ...ok, estado, codigo: estado === 5 ? (r.scenario.codigo ?? '5000') : '5000' });
    if (r.documents.length === 0) return answer({ ...ok, estado: 5, codigo: '5004' });
    if (r.documents.length > control.limits[r.tipo]) return answer({ ...ok, estado: 5, codigo: '5003', numero: r.documents.length });
    if (r.packages.size === 0) r.packages = buildPackages(r, Math.max(1, Math.min(r.scenario.packages ?? 1, r.documents.length)));
    return answer({ ...ok, estado: 3, codigo: '5000', numero: r.documents.length, paquetes: [...r.packages.keys()] });
  }

  function descargar(doc: Document, holder: string): Response {
    const answer = (code: string, mensaje: string, paquete = '') => {
      note('descarga', 'Descargar', code);
      return new Response(
        envelope(
          `<RespuestaDescargaMasivaTercerosSalida xmlns="${DES}"><Paquete>${paquete}</Paquete></RespuestaDescargaMasivaTercerosSalida>`,
          `<h:respuesta CodEstatus="${code}" Mensaje="${attr(mensaje)}" xmlns:h="${DES}" xmlns="${DES}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>`,
        ),
        { headers: xmlHeader },
      );
    };
    const operation = elements(doc, DES, 'PeticionDescargaMasivaTercerosEntrada')[0];
    const p = operation && elements(operation, DES, 'peticionDescarga')[0];
    if (!operation || !p) return answer('301', 'XML Mal Formado');
    const rfc = p.getAttribute('RfcSolicitante') ?? '';
    const refused = signatureProblem(doc, operation, rfc, holder);
    if (refused) return answer(...refused);
    if (control.download404 > 0) {
      control.download404--;
      return answer('404', 'Error No Controlado');
    }
    const id = p.getAttribute('IdPaquete') ?? '';
    const r = control.solicitudes.get(id.replace(/_\d+$/, ''));
    const zip = r?.rfc === rfc ? r.packages.get(id) : undefined;
    if (!r || !zip) return answer('5004', 'No se encontró la información');
    const times = r.downloads.get(id) ?? 0;
    // Observed since 2025-09 (phpcfdi/sat-ws-descarga-masiva#78): the third download of a package is refused.
    if (times >= 2) return answer('5008', 'Maximo de descargas permitidas.');
    r.downloads.set(id, times + 1);
    return answer('5000', 'Solicitud Aceptada', zip.toString('base64'));
  }

  /** ConsultaCFDIService as src/pac/sat-consulta.ts reads it; EFOS 200 (not listed) unless `control` says 100. */
  async function consulta(req: Request): Promise<Response> {
    const expression = (/<[a-z]*:?expresionImpresa>([^<]*)</.exec(await req.text())?.[1] ?? '').replace(/&amp;/g, '&');
    const uuid = (/[?&]id=([^&]+)/.exec(expression)?.[1] ?? '').toUpperCase();
    const document = control.documents.find((d) => facts(d).uuid === uuid);
    const set = control.consulta.get(uuid);
    const found = document || set;
    const state = {
      CodigoEstatus: found ? 'S - Comprobante obtenido satisfactoriamente.' : 'N - 602: Comprobante no encontrado.',
      Estado: set?.Estado ?? (document ? (document.fechaCancelacion ? 'Cancelado' : 'Vigente') : 'No Encontrado'),
      EsCancelable: set?.EsCancelable ?? (found ? 'Cancelable con aceptación' : ''),
      EstatusCancelacion: set?.EstatusCancelacion ?? (document?.fechaCancelacion ? 'Cancelado sin aceptación' : ''),
      ValidacionEFOS: set?.ValidacionEFOS ?? (found ? '200' : ''),
    };
    note('consulta', 'Consulta', state.Estado);
    const fields = Object.entries(state)
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([k, v]) => `<a:${k}>${attr(v)}</a:${k}>`)
      .join('');
    return new Response(
      `<s:Envelope xmlns:s="${SOAP_ENV}"><s:Body><ConsultaResponse xmlns="http://tempuri.org/"><ConsultaResult xmlns:a="http://schemas.datacontract.org/2004/07/Sat.Cfdi.Negocio.ConsultaCfdi.Servicio" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">${fields}</ConsultaResult></ConsultaResponse></s:Body></s:Envelope>`,
      { headers: xmlHeader },
    );
  }

  /** SAT's published list: windows-1250, three lines before the data, RFC in column 2 and situación in column 4. */
  function list69b(): Response {
    const lines = [
      `Información actualizada al ${now().toISOString().slice(0, 10)}`,
      'Listado completo de contribuyentes (Artículo 69-B del Código Fiscal de la Federación)',
      'No,RFC,Nombre del Contribuyente,Situación del contribuyente,Número y fecha de oficio global de presunción SAT,Publicación página SAT presuntos',
      ...control.list69b.map((t, i) =>
        [String(i + 1), t.rfc, t.nombre, t.situacion, '500-05-2025-00001 de fecha 02 de enero de 2025', '02/01/2025'].map(csvField).join(','),
      ),
    ];
    return new Response(new Uint8Array(windows1250(lines.join('\r\n') + '\r\n')), { headers: { 'content-type': 'text/csv; charset=windows-1250' } });
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === 'GET' && path === '/69b/Listado_Completo_69-B.csv') return list69b();
      const cer = /^\/rccf\/(\d{6})\/(\d{6})\/(\d{2})\/(\d{2})\/(\d{2})\/(\d{20})\.cer$/.exec(path);
      if (req.method === 'GET' && cer) {
        const serial = cer[6]!;
        const der = serial.startsWith(cer.slice(1, 6).join('')) ? certificates.get(serial) : undefined;
        return der ? new Response(new Uint8Array(der), { headers: { 'content-type': 'application/pkix-cert' } }) : new Response('Not Found', { status: 404 });
      }
      if (req.method !== 'POST') return new Response('Not Found', { status: 404 });
      const action = (req.headers.get('soapaction') ?? '').replace(/^"|"$/g, '');
      if (path === '/consulta/ConsultaCFDIService.svc' && action === ACTIONS.consulta) return consulta(req);
      if (path === '/Autenticacion/Autenticacion.svc' && action === ACTIONS.autentica) {
        if (control.authHttp500 > 0) {
          control.authHttp500--;
          note('autenticacion', 'Autentica', 'HTTP 500');
          return new Response('<html><body>Internal Server Error</body></html>', { status: 500, headers: { 'content-type': 'text/html' } });
        }
        const doc = parse(await req.text());
        return doc ? autentica(doc) : invalidSecurity();
      }
      const routes: Record<string, string[]> = {
        '/SolicitaDescargaService.svc': [ACTIONS.emitidos, ACTIONS.recibidos, ACTIONS.folio],
        '/VerificaSolicitudDescargaService.svc': [ACTIONS.verifica],
        '/DescargaMasivaService.svc': [ACTIONS.descargar],
      };
      if (!routes[path]?.includes(action)) return new Response('Not Found', { status: 404 });
      const holder = tokenRfc(req);
      const doc = parse(await req.text());
      if (!holder) {
        // An absent, unknown or expired token: SAT's code 300 "Usuario No Válido" in the operation's own answer.
        const operation = action.split('/').pop()!;
        note(path.slice(1), operation, '300');
        return new Response(
          action === ACTIONS.descargar
            ? envelope(
                `<RespuestaDescargaMasivaTercerosSalida xmlns="${DES}"><Paquete/></RespuestaDescargaMasivaTercerosSalida>`,
                `<h:respuesta CodEstatus="300" Mensaje="Usuario No Válido" xmlns:h="${DES}"/>`,
              )
            : envelope(`<${operation}Response xmlns="${DES}"><${operation}Result CodEstatus="300" Mensaje="Usuario No Válido"/></${operation}Response>`),
          { headers: xmlHeader },
        );
      }
      if (!doc)
        return new Response(envelope('<s:Fault><faultcode>s:Client</faultcode><faultstring>XML Mal Formado</faultstring></s:Fault>'), {
          status: 500,
          headers: xmlHeader,
        });
      if (action === ACTIONS.verifica) return verifica(doc, holder);
      if (action === ACTIONS.descargar) return descargar(doc, holder);
      return solicita(doc, action === ACTIONS.emitidos ? 'emitidos' : action === ACTIONS.recibidos ? 'recibidos' : 'folio', holder);
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    /** The base of Autenticacion/Autenticacion.svc, SolicitaDescargaService.svc and VerificaSolicitudDescargaService.svc. */
    url: base,
    /** The base of DescargaMasivaService.svc (SAT serves it from another host; here the same one). */
    downloadUrl: base,
    consultaUrl: `${base}/consulta/ConsultaCFDIService.svc`,
    certificatesUrl: `${base}/rccf`,
    list69bUrl: `${base}/69b/Listado_Completo_69-B.csv`,
    control,
    stop: () => server.stop(true),
  };
}

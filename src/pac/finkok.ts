import { XMLParser } from 'fast-xml-parser';
import { child, escapeXml, parseXml } from '../cfdi/xml.ts';
import { consultSat } from './sat-consulta.ts';
import { CANCELLED, type DocumentKind, documentKindOf, readStamp, refusedBeforeSending, selloOf } from './stamped-reply.ts';
import type { CancelResult, Pac, PacEntry, StampFailure, StampResult } from './types.ts';

/**
 * Live stamping through Finkok (trading as Quadrum): SOAP 1.1 services under one base URL, the account's username and
 * password in every call. `stamp` takes the sealed XML base64-encoded and answers the stamped XML (escaped text), its
 * UUID, CodEstatus and Incidencias (CodigoError, MensajeIncidencia); `stamped` returns an earlier stamp of the same
 * document, `query_pending` one by UUID; `cancel_signature` takes the CSD-signed Cancelacion (base64) and answers a
 * Folio per UUID (EstatusUUID) and SAT's acuse, which `get_receipt` gives again; `registration`'s `add` registers an
 * issuer's RFC with the account, which Finkok requires before it stamps for that RFC (702 otherwise). A Retenciones
 * goes to the `retentions` service instead, whose `stamp`, `stamped` and `cancel_signature` take and answer the same
 * fields; it has no `query_pending` and we do not ask its `get_receipt` (docs/decisions.md, "Retenciones through live PACs").
 */
export interface FinkokPacOptions {
  /** The base under which /servicios/soap/stamp, /cancel, /registration and /retentions live (e.g. https://demo-facturacion.finkok.com). */
  url: string;
  username: string;
  password: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** SAT's ConsultaCFDIService (default: production). */
  satConsultaUrl?: string;
}

const NS = {
  stamp: 'http://facturacion.finkok.com/stamp',
  cancel: 'http://facturacion.finkok.com/cancel',
  registration: 'http://facturacion.finkok.com/registration',
  retentions: 'http://facturacion.finkok.com/retentions',
} as const;
type Service = keyof typeof NS;
/** Where each kind is stamped and cancelled. */
const SERVICE: Record<DocumentKind, { stamp: Service; cancel: Service }> = {
  cfdi: { stamp: 'stamp', cancel: 'cancel' },
  retencion: { stamp: 'retentions', cancel: 'retentions' },
};

// Namespaces dropped, every value a string; Incidencia and Folio always lists (one or many in the reply). Character
// references decoded too (`&#10;` in the escaped XML): the stamped document keeps its line breaks.
const parser = new XMLParser({
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  htmlEntities: true,
  isArray: (name) => name === 'Incidencia' || name === 'Folio',
});

type Fields = Record<string, unknown>;
type Soap = { ok: true; status: number; result: Fields } | { ok: false; class: 'provider' | 'ambiguous'; message: string };
interface Incidencia {
  code: string;
  message: string;
  uuid: string;
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v && typeof v === 'object' && '#text' in v ? String((v as Record<string, unknown>)['#text']) : '';
const list = (v: unknown): Fields[] => (Array.isArray(v) ? v.filter((x): x is Fields => !!x && typeof x === 'object') : []);

/** 307 and its kin (another PAC's "timbrado anteriormente", "ya está siendo timbrado"): stamped here before. */
const DUPLICATE = new Set(['307', '506', '5124']);
/**
 * Nothing stamped and the provider is the problem: our credentials (300), the account or the issuer suspended at Finkok
 * (703, 701), a synchronous "service unavailable" (350). Another PAC may stamp at once.
 */
const PROVIDER = new Set(['300', '350', '701', '703']);
/** The HSM or the relay to SAT failed (351, 352, 708): the document may have been stamped. */
const AMBIGUOUS = new Set(['351', '352', '708']);
/**
 * A prepaid account without stamps left: Finkok says it in words, with no code of its own. Only an incidence without a
 * data error's code reads so: a CFDI40xxx or CRPxxxxx message may speak of a Saldo (ImpSaldoAnt).
 */
const QUOTA = /timbres|cr[eé]ditos?\b|saldo/i;
const DATA_CODE = /^(30[1-8]|40[1-3]|[A-Z]+\d+)$/i;
/** The issuer's RFC is not registered with this Finkok account. */
const UNREGISTERED = '702';
const STAMPED_OK = /timbrado satisfactoriamente/i;

export function createFinkokPac(o: FinkokPacOptions): Pac {
  // A service's own address pasted as the base (…/servicios/soap/stamp.wsdl) names the same base.
  const base = o.url.replace(/\/servicios\/soap(\/.*)?$/, '').replace(/\/+$/, '');
  const doFetch = o.fetch ?? fetch;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const auth = { username: o.username, password: o.password };

  /** One SOAP call. Refused before sending: provider; a timeout, a reply without a SOAP body or a Fault: ambiguous. */
  async function call(service: Service, operation: string, fields: Record<string, string>): Promise<Soap> {
    const body =
      `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:f="${NS[service]}">` +
      `<soapenv:Body><f:${operation}>` +
      Object.entries(fields)
        .map(([k, v]) => `<f:${k}>${escapeXml(v)}</f:${k}>`)
        .join('') +
      `</f:${operation}></soapenv:Body></soapenv:Envelope>`;
    let status: number;
    let reply: string;
    try {
      const res = await doFetch(`${base}/servicios/soap/${service}`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${operation}"` },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      reply = await res.text();
    } catch (err) {
      return {
        ok: false,
        class: refusedBeforeSending(err) ? 'provider' : 'ambiguous',
        message: `Finkok unreachable (${operation}): ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    let envelopeBody: Fields | undefined;
    try {
      const b = parser.parse(reply)?.Envelope?.Body;
      envelopeBody = b && typeof b === 'object' ? (b as Fields) : undefined;
    } catch {
      envelopeBody = undefined;
    }
    if (!envelopeBody) {
      // A proxy's 401/403 in front of Finkok refuses our request: nothing was stamped.
      const refused = status === 401 || status === 403;
      return { ok: false, class: refused ? 'provider' : 'ambiguous', message: `Finkok answered HTTP ${status} without a SOAP reply (${operation})` };
    }
    const fault = envelopeBody.Fault as Fields | undefined;
    if (fault)
      return { ok: false, class: 'ambiguous', message: `Finkok SOAP fault (${operation}, HTTP ${status}): ${text(fault.faultstring) || 'no faultstring'}` };
    const result = (envelopeBody[`${operation}Response`] as Fields | undefined)?.[`${operation}Result`];
    if (!result || typeof result !== 'object') return { ok: false, class: 'ambiguous', message: `Finkok reply has no ${operation}Result (HTTP ${status})` };
    return { ok: true, status, result: result as Fields };
  }

  const incidencias = (result: Fields): Incidencia[] =>
    list((result.Incidencias as Fields | undefined)?.Incidencia).map((i) => ({
      code: text(i.CodigoError),
      message: text(i.MensajeIncidencia),
      uuid: text(i.Uuid),
    }));

  /** `query_pending`: a stamp by UUID (STAMPED, not yet at SAT, or FINISHED), when Finkok has its XML. */
  async function queryPending(uuid: string, sello: string | undefined): Promise<StampResult | undefined> {
    const r = await call('stamp', 'query_pending', { ...auth, uuid });
    if (!r.ok) return undefined;
    const xml = text(r.result.xml);
    return xml ? readStamp(xml, sello, 'cfdi') : undefined;
  }

  /**
   * After a 307 without the earlier XML: `stamped` (the same document), then, for a CFDI, `query_pending` when the 307
   * named the UUID. Finkok may not find a document for seconds after stamping it: then the answer is `duplicate`, asked
   * again later of Finkok, never of another PAC.
   */
  async function recover(doc: Sent, uuid: string, said: string): Promise<StampResult> {
    const r = await call(SERVICE[doc.kind].stamp, 'stamped', { xml: doc.xml64, ...auth });
    if (r.ok) {
      const xml = text(r.result.xml);
      const found = xml ? readStamp(xml, doc.sello, doc.kind) : undefined;
      if (found) return found;
    }
    if (uuid && doc.kind === 'cfdi') {
      const pending = await queryPending(uuid, doc.sello);
      if (pending) return pending;
    }
    const why = r.ok
      ? incidencias(r.result)
          .map((i) => `${i.code} ${i.message}`.trim())
          .join('; ') || 'no document'
      : r.message;
    return { ok: false, class: 'duplicate', code: '307', message: `Finkok: ${said}; the earlier stamp is not available yet (stamped: ${why})` };
  }

  type Attempt = StampResult | { unregistered: Incidencia };
  /** The document sent: its kind, its bytes as Finkok takes them and its Sello (what a stamp must carry back). */
  interface Sent {
    kind: DocumentKind;
    xml64: string;
    sello: string | undefined;
  }
  const sent = (sealedXml: string): Sent => ({
    kind: documentKindOf(sealedXml),
    xml64: Buffer.from(sealedXml, 'utf8').toString('base64'),
    sello: selloOf(sealedXml),
  });

  async function stampOnce(doc: Sent): Promise<Attempt> {
    const r = await call(SERVICE[doc.kind].stamp, 'stamp', { xml: doc.xml64, ...auth });
    if (!r.ok) return r;
    const xml = text(r.result.xml);
    const stamp = xml ? readStamp(xml, doc.sello, doc.kind) : undefined;
    // A stamp, or a 307 that carries the earlier one: either is this document's stamp (Incidencias may be warnings).
    if (stamp) return stamp;
    const found = incidencias(r.result);
    const duplicate = found.find((i) => DUPLICATE.has(i.code));
    if (duplicate) return recover(doc, duplicate.uuid, `${duplicate.code} ${duplicate.message}`.trim());
    const uuid = text(r.result.UUID);
    if (STAMPED_OK.test(text(r.result.CodEstatus)) || uuid) {
      const pending = uuid && doc.kind === 'cfdi' ? await queryPending(uuid, doc.sello) : undefined;
      return pending ?? { ok: false, class: 'ambiguous', message: 'Finkok says stamped but its reply has no valid stamped document for this one' };
    }
    const unregistered = found.find((i) => i.code === UNREGISTERED);
    if (unregistered) return { unregistered };
    if (found.length === 0)
      return { ok: false, class: 'ambiguous', message: `Finkok reply has neither a stamp nor an incidence (${text(r.result.CodEstatus) || 'no CodEstatus'})` };
    return classify(found);
  }

  /** `registration`'s `add`: the issuer's RFC as an on-demand customer of this account (success also when it exists). */
  async function register(rfc: string): Promise<{ ok: true } | { ok: false; message: string }> {
    const r = await call('registration', 'add', { reseller_username: o.username, reseller_password: o.password, taxpayer_id: rfc, type_user: 'O' });
    if (!r.ok) return { ok: false, message: r.message };
    if (text(r.result.success).toLowerCase() === 'true') return { ok: true };
    return { ok: false, message: text(r.result.message) || 'registration refused without a message' };
  }

  const consult = (query: Parameters<Pac['status']>[0]) => consultSat(query, { url: o.satConsultaUrl, fetch: doFetch, timeoutMs });

  /** `get_receipt`: SAT's acuse of a cancellation Finkok relayed (type C). */
  async function receipt(rfcEmisor: string, uuid: string): Promise<string | undefined> {
    const r = await call('cancel', 'get_receipt', { ...auth, taxpayer_id: rfcEmisor, uuid, type: 'C' });
    if (!r.ok || text(r.result.success).toLowerCase() !== 'true') return undefined;
    return text(r.result.receipt) || undefined;
  }

  /**
   * `cancel_signature` of the kind's service; ok when SAT answered this UUID cancelled, with its acuse (for a CFDI,
   * asked again with `get_receipt` when the reply lacks it).
   */
  async function cancelSignature(kind: DocumentKind, request: { uuid: string; rfcEmisor: string; signedXml: string }): Promise<CancelResult> {
    const r = await call(SERVICE[kind].cancel, 'cancel_signature', {
      xml: Buffer.from(request.signedXml, 'utf8').toString('base64'),
      ...auth,
      // Answered now: the cancellation job asks again itself, rather than Finkok holding it when SAT is down.
      store_pending: 'false',
    });
    if (!r.ok) return { ok: false, retryable: true, message: r.message };
    const folio = list((r.result.Folios as Fields | undefined)?.Folio).find((f) => text(f.UUID).toUpperCase() === request.uuid.toUpperCase());
    const code = folio ? text(folio.EstatusUUID) : '';
    const codEstatus = text(r.result.CodEstatus);
    if (CANCELLED[kind].has(code)) {
      const acuse = text(r.result.Acuse) || (kind === 'cfdi' ? await receipt(request.rfcEmisor, request.uuid) : undefined);
      if (!acuse) return { ok: false, retryable: true, message: `Finkok accepted the cancellation (${code}) but has no acuse yet` };
      return { ok: true, acuseXml: acuse, estatusUuid: code };
    }
    const message =
      [code && `EstatusUUID ${code}`, codEstatus, folio ? text(folio.EstatusCancelacion) : ''].filter(Boolean).join(' — ') || 'Finkok refused the cancellation';
    const leading = /^\s*(\d{3,4})\b/.exec(codEstatus)?.[1];
    // Our credentials or the relay to SAT: nothing was decided about the document; the request is sent again later.
    if (!folio && (leading === '300' || leading === '708' || /usuario|contrase/i.test(codEstatus)))
      return { ok: false, retryable: true, message: `Finkok: ${message}` };
    return { ok: false, retryable: false, code: code || leading || 'finkok', message: `Finkok: ${message}` };
  }

  return {
    name: 'finkok',
    status: consult,
    async recover(sealedXml: string): Promise<StampResult | undefined> {
      const doc = sent(sealedXml);
      const r = await call(SERVICE[doc.kind].stamp, 'stamped', { xml: doc.xml64, ...auth });
      if (!r.ok) return r;
      const xml = text(r.result.xml);
      return xml ? readStamp(xml, doc.sello, doc.kind) : undefined;
    },
    async stamp(sealedXml: string): Promise<StampResult> {
      const doc = sent(sealedXml);
      const first = await stampOnce(doc);
      if (!('unregistered' in first)) return first;
      // Registered once, then stamped again; a second refusal says what the operator must do.
      const rfc = rfcEmisorOf(sealedXml, doc.kind);
      const registered = rfc ? await register(rfc) : { ok: false as const, message: 'the document names no Emisor RFC' };
      const advice = `register the RFC in Finkok's customer panel (or give FINKOK_USERNAME an account that may add customers), then retry`;
      if (!registered.ok)
        return {
          ok: false,
          class: 'provider',
          message: `Finkok: the issuer RFC ${rfc ?? ''} is not registered with this account (${first.unregistered.code} ${first.unregistered.message}) and registering it failed (${registered.message}): ${advice}`,
        };
      const second = await stampOnce(doc);
      if (!('unregistered' in second)) return second;
      return { ok: false, class: 'provider', message: `Finkok: the issuer RFC ${rfc} is still not registered after registration succeeded: ${advice}` };
    },
    async cancel(request): Promise<CancelResult> {
      const answer = await cancelSignature('cfdi', request);
      if (!answer.ok) return answer;
      const now = await consult(request);
      return { ...answer, status: now.ok ? now.status : undefined };
    },
    cancelRetencion: (request) => cancelSignature('retencion', request),
  };
}

/** The first incidence that decides: provider and ambiguous codes before data errors, which are definitive. */
function classify(found: Incidencia[]): StampFailure {
  const say = (i: Incidencia) => `Finkok: ${[i.code, i.message].filter(Boolean).join(' - ')}`;
  const provider = found.find((i) => PROVIDER.has(i.code) || (QUOTA.test(i.message) && !DATA_CODE.test(i.code)));
  if (provider) return { ok: false, class: 'provider', message: say(provider) };
  const ambiguous = found.find((i) => AMBIGUOUS.has(i.code));
  if (ambiguous) return { ok: false, class: 'ambiguous', message: say(ambiguous) };
  const first = found[0]!;
  return { ok: false, class: 'definitive', code: first.code || 'finkok', message: say(first) };
}

/** The issuer's RFC: a CFDI's Emisor Rfc, a Retenciones' Emisor RfcE. */
function rfcEmisorOf(sealedXml: string, kind: DocumentKind): string | undefined {
  try {
    return kind === 'cfdi' ? child(parseXml(sealedXml), 'cfdi:Emisor')?.attrs.Rfc : child(parseXml(sealedXml), 'retenciones:Emisor')?.attrs.RfcE;
  } catch {
    return undefined;
  }
}

/** Finkok in the registry: FINKOK_URL (the base of /servicios/soap/…), FINKOK_USERNAME, FINKOK_PASSWORD. */
export const finkokEntry: PacEntry = {
  name: 'finkok',
  settings: [{ env: 'FINKOK_URL', url: true }, { env: 'FINKOK_USERNAME' }, { env: 'FINKOK_PASSWORD' }],
  build: (s, shared) =>
    createFinkokPac({ url: s.FINKOK_URL!, username: s.FINKOK_USERNAME!, password: s.FINKOK_PASSWORD!, satConsultaUrl: shared.satConsultaUrl }),
};

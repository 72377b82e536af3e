import { consultSat } from './sat-consulta.ts';
import { CANCELLED, type DocumentKind, documentKindOf, readStamp, refusedBeforeSending, selloOf } from './stamped-reply.ts';
import type { CancelResult, Pac, PacEntry, StampResult } from './types.ts';

/**
 * Live stamping through SW (SmarterWeb) REST services: POST /security/authenticate (headers user, password) for
 * a token, then the sealed XML base64-encoded in the multipart field `xml`: a CFDI to /cfdi33/stamp/v4/b64 (the
 * stamped document in the reply's `data.cfdi`), a Retenciones to /retencion/stamp/v3/b64 (in `data.retencion`).
 * Network failures, timeouts, 5xx and malformed replies are retryable; SAT/PAC validation codes are rejections. A
 * "307 … timbre previo" reply that carries the earlier stamp is that stamp (a retry after a lost answer), never a
 * second one. Cancellations: the signed request to /cfdi33/cancel/xml or /retencion/cancel/xml.
 */
export interface SwPacOptions {
  url: string;
  user: string;
  password: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** SAT's ConsultaCFDIService (default: production). */
  satConsultaUrl?: string;
}

/** Each kind's services at SW (docs/decisions.md, "Retenciones through live PACs"). */
const SERVICE = {
  cfdi: { stamp: '/cfdi33/stamp/v4/b64', replyField: 'cfdi', filename: 'cfdi.xml', cancel: '/cfdi33/cancel/xml' },
  retencion: { stamp: '/retencion/stamp/v3/b64', replyField: 'retencion', filename: 'retencion.xml', cancel: '/retencion/cancel/xml' },
} as const;

interface SwReply {
  status?: string;
  message?: string;
  messageDetail?: string;
  data?: { token?: string; cfdi?: string; retencion?: string; uuid?: string | Record<string, string>; acuse?: string } | null;
}

/** The code a message starts with: SAT's (CFDI40xxx, Reten20xxx from the Retenciones matrix) or the PAC's (307). */
const LEADING_CODE = /^\s*(CFDI\d{5}|Reten\d{5}|\d{3,4})/;

export function createSwPac(o: SwPacOptions): Pac {
  const base = o.url.replace(/\/$/, '');
  const doFetch = o.fetch ?? fetch;
  const timeoutMs = o.timeoutMs ?? 10_000;
  let token: string | undefined;

  async function call(path: string, init: RequestInit): Promise<{ status: number; reply?: SwReply; text: string }> {
    const res = await doFetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let reply: SwReply | undefined;
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed === 'object') reply = parsed as SwReply;
    } catch {
      reply = undefined;
    }
    return { status: res.status, reply, text };
  }

  async function authenticate(): Promise<string> {
    const { status, reply } = await call('/security/authenticate', { method: 'POST', headers: { user: o.user, password: o.password } });
    const value = reply?.data?.token;
    if (status !== 200 || typeof value !== 'string' || !value)
      throw new Error(`PAC authentication failed (HTTP ${status}${reply?.message ? `: ${reply.message}` : ''})`);
    return value;
  }

  /**
   * POST of one multipart field `xml` with the session token. Unreachable, 401 (the token is dropped), 5xx, 429 and
   * non-JSON replies are retryable failures; anything else is the PAC's JSON answer.
   */
  async function postFile(
    path: string,
    file: Blob,
    filename: string,
  ): Promise<{ status: number; reply: SwReply } | { ok: false; class: 'provider' | 'ambiguous'; message: string }> {
    try {
      token ??= await authenticate();
    } catch (err) {
      return { ok: false, class: 'provider', message: `PAC unreachable: ${err instanceof Error ? err.message : String(err)}` };
    }
    let res: Awaited<ReturnType<typeof call>>;
    try {
      const form = new FormData();
      form.append('xml', file, filename);
      res = await call(path, { method: 'POST', headers: { Authorization: `bearer ${token}` }, body: form });
    } catch (err) {
      // Refused before the request left: nothing was sent. Anything else (a timeout, a reset) may have stamped.
      return {
        ok: false,
        class: refusedBeforeSending(err) ? 'provider' : 'ambiguous',
        message: `PAC unreachable: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    if (res.status === 401) {
      token = undefined;
      return { ok: false, class: 'provider', message: 'PAC session expired' };
    }
    if (res.status >= 500 || res.status === 429) return { ok: false, class: 'ambiguous', message: `PAC answered HTTP ${res.status}` };
    if (!res.reply) return { ok: false, class: 'ambiguous', message: `PAC reply is not JSON (HTTP ${res.status})` };
    return { status: res.status, reply: res.reply };
  }

  const consult = (query: Parameters<Pac['status']>[0]) => consultSat(query, { url: o.satConsultaUrl, fetch: doFetch, timeoutMs });

  /** The signed request to the kind's cancellation service; ok when SAT answered this UUID cancelled. */
  async function sendCancellation(kind: DocumentKind, signedXml: string, uuid: string): Promise<CancelResult> {
    const res = await postFile(SERVICE[kind].cancel, new Blob([signedXml], { type: 'application/xml' }), 'cancelacion.xml');
    if ('class' in res) return { ok: false, retryable: true, message: res.message };
    const codes = typeof res.reply.data?.uuid === 'object' && res.reply.data.uuid ? res.reply.data.uuid : {};
    const code = Object.entries(codes).find(([answered]) => answered.toUpperCase() === uuid.toUpperCase())?.[1];
    if (res.reply.status === 'success' && res.reply.data?.acuse && code && CANCELLED[kind].has(code))
      return { ok: true, acuseXml: res.reply.data.acuse, estatusUuid: code };
    const message = [res.reply.message, res.reply.messageDetail].filter(Boolean).join(' — ') || `HTTP ${res.status}`;
    return { ok: false, retryable: false, code: code ?? LEADING_CODE.exec(res.reply.message ?? '')?.[1] ?? String(res.status), message };
  }

  return {
    name: 'sw',
    status: consult,
    async cancel(request): Promise<CancelResult> {
      const answer = await sendCancellation('cfdi', request.signedXml, request.uuid);
      if (!answer.ok) return answer;
      const now = await consult(request);
      return { ...answer, status: now.ok ? now.status : undefined };
    },
    cancelRetencion: (request) => sendCancellation('retencion', request.signedXml, request.uuid),
    async stamp(sealedXml: string): Promise<StampResult> {
      const kind = documentKindOf(sealedXml);
      const service = SERVICE[kind];
      const sello = selloOf(sealedXml);
      const res = await postFile(service.stamp, new Blob([Buffer.from(sealedXml, 'utf8').toString('base64')], { type: 'text/plain' }), service.filename);
      if ('class' in res) return res;

      const document = res.reply.data?.[service.replyField];
      const stamped = document ? readStamp(document, sello, kind) : undefined;
      if (res.reply.status === 'success') {
        return stamped ?? { ok: false, class: 'ambiguous', message: `PAC reply has no valid stamped ${kind === 'cfdi' ? 'CFDI' : 'Retenciones'}` };
      }
      const message = [res.reply.message, res.reply.messageDetail].filter(Boolean).join(' — ') || `HTTP ${res.status}`;
      const code = LEADING_CODE.exec(res.reply.message ?? '')?.[1] ?? String(res.status);
      if (code === '307') {
        // Already stamped: the earlier stamp, when the provider returns it, is the answer.
        return stamped ?? { ok: false, class: 'duplicate', code, message: `${message} (the provider did not return the earlier stamp)` };
      }
      return { ok: false, class: 'definitive', code, message };
    },
  };
}

/** SW in the registry: SW_URL (e.g. https://services.test.sw.com.mx), SW_USER, SW_PASSWORD; PAC_* are their legacy names. */
export const swEntry: PacEntry = {
  name: 'sw',
  settings: [
    { env: 'SW_URL', url: true, legacy: 'PAC_URL' },
    { env: 'SW_USER', legacy: 'PAC_USER' },
    { env: 'SW_PASSWORD', legacy: 'PAC_PASSWORD' },
  ],
  build: (s, shared) => createSwPac({ url: s.SW_URL!, user: s.SW_USER!, password: s.SW_PASSWORD!, satConsultaUrl: shared.satConsultaUrl }),
};

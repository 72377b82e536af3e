import { XMLParser } from 'fast-xml-parser';
import { child, escapeXml, parseXml } from '../../src/cfdi/xml.ts';
import { createSandboxPac } from '../../src/pac/sandbox.ts';
import { type DocumentKind, documentKindOf, selloOf } from '../../src/pac/stamped-reply.ts';
import { testSandboxSat } from '../helpers.ts';
import { consultaReply, type DocumentRequest, type MockAnswer, MockLedger, RequestLog } from './mock-ledger.ts';

/**
 * A Finkok SOAP server on 127.0.0.1 for tests and the chaos test. It stamps like the sandbox (a valid TFD), remembers
 * every document it stamped (`ledger`), and answers as the scenario a test sets at any time says:
 * - `ok`: stamps; a document stamped before gets 307 with its earlier XML;
 * - `down`: the port refuses connections (the server stops; it listens again on the same port when the scenario changes);
 * - `slow_then_stamped`: stamps, answers after `slowMs`;
 * - `timeout_after_stamp`: stamps, then never answers;
 * - `quota_exhausted`: refuses, the account has no stamps left;
 * - `307_with_xml`: stamps if it has not, answers 307 with the (earlier) XML;
 * - `307_without_xml`: stamps if it has not, answers 307 without it (`stamped` finds it);
 * - `stamped_not_found_for_5s`: stamps, answers 307 without the XML, and `stamped`/`query_pending` find the document
 *   only `notFoundMs` (5 s) after it was stamped, as Finkok does;
 * - `non_xml_502`: an HTML-less, non-XML 502 from a proxy (nothing stamped);
 * - `reject`: a data error (CFDI40108).
 * Cancellation (`cancel_signature`, `get_receipt`), registration (`add`) and SAT's consultation are served too. The
 * `retentions` service stamps, recovers (`stamped`) and cancels a Retenciones 2.0 under the same scenarios (its
 * cancellation answers SAT's retención codes, 1201 or 1205); each service refuses the other's kind (301).
 * `log` keeps every `stamp`, `stamped` and `query_pending` request per document, with its time and its answer.
 */
export type FinkokScenario =
  | 'ok'
  | 'down'
  | 'slow_then_stamped'
  | 'timeout_after_stamp'
  | 'quota_exhausted'
  | '307_with_xml'
  | '307_without_xml'
  | 'stamped_not_found_for_5s'
  | 'non_xml_502'
  | 'reject';

export interface FinkokMockOptions {
  username?: string;
  password?: string;
  slowMs?: number;
  notFoundMs?: number;
  /** Refuse to stamp (702) for an RFC that `add` has not registered. */
  requireRegistration?: boolean;
}

interface FinkokRequest {
  path: string;
  soapAction: string | null;
  operation: string;
  fields: Record<string, string>;
  body: string;
}

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, trimValues: true });
const NS: Record<string, string> = {
  stamp: 'http://facturacion.finkok.com/stamp',
  cancel: 'http://facturacion.finkok.com/cancel',
  registration: 'http://facturacion.finkok.com/registration',
  retentions: 'http://facturacion.finkok.com/retentions',
};
/** The services that stamp: a CFDI's and a retención's, with the same operations and fields. */
type StampService = 'stamp' | 'retentions';
const SERVICE_OF: Record<DocumentKind, StampService> = { cfdi: 'stamp', retencion: 'retentions' };
const f = (name: string, value: string) => `<s0:${name}>${escapeXml(value)}</s0:${name}>`;
const soap = (service: string, operation: string, inner: string) =>
  new Response(
    `<?xml version='1.0' encoding='UTF-8'?><senv:Envelope xmlns:senv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tns="${NS[service]}" xmlns:s0="apps.services.soap.core.views">` +
      `<senv:Body><tns:${operation}Response><tns:${operation}Result>${inner}</tns:${operation}Result></tns:${operation}Response></senv:Body></senv:Envelope>`,
    { headers: { 'content-type': 'text/xml; charset=utf-8' } },
  );
const incidencias = (list: { code: string; message: string; uuid?: string }[]) =>
  `<s0:Incidencias>${list
    .map(
      (i) =>
        `<s0:Incidencia>${f('IdIncidencia', 'ID')}${f('Uuid', i.uuid ?? '')}${f('CodigoError', i.code)}${f('WorkProcessId', 'WP')}${f('MensajeIncidencia', i.message)}${f('ExtraInfo', '')}${f('NoCertificadoPac', '')}${f('FechaRegistro', new Date().toISOString().slice(0, 19))}</s0:Incidencia>`,
    )
    .join('')}</s0:Incidencias>`;

export async function createFinkokMock(o: FinkokMockOptions = {}) {
  const username = o.username ?? 'finkok-user';
  const password = o.password ?? 'finkok-secret';
  const slowMs = o.slowMs ?? 1500;
  const notFoundMs = o.notFoundMs ?? 5000;
  const sandbox = createSandboxPac(testSandboxSat());
  const ledger = new MockLedger('finkok');
  const log = new RequestLog('finkok');
  /**
   * Bumped whenever the server stops (`down`, close): stop(true) closes every connection, so a reply made afterwards for a
   * request that came before (a slow stamp still sleeping) never reaches the client, which sees the connection cut.
   * Logged as what the client got: ambiguous.
   */
  let generation = 0;
  const openedIn = new WeakMap<DocumentRequest, number>();
  const answer = (entry: DocumentRequest, what: MockAnswer, response: Response, recovered = false) =>
    openedIn.get(entry) === generation ? RequestLog.answer(entry, what, response, recovered) : RequestLog.answer(entry, 'ambiguous', response);
  const requests: FinkokRequest[] = [];
  const cancellations: { service: 'cancel' | 'retentions'; xml: string; uuid: string }[] = [];
  const acuses = new Map<string, string>();
  const registered = new Set<string>();
  const hung: (() => void)[] = [];
  const state = {
    scenario: 'ok' as FinkokScenario,
    cancelMode: 'ok' as 'ok' | 'reject' | 'no_acuse' | '5xx',
    registrationFails: false,
    requireRegistration: o.requireRegistration ?? false,
    /** What `reject` answers. */
    rejection: { code: 'CFDI40108', message: 'El TipoDeComprobante es I, E o N, el importe no es correcto.' },
    /** A 307's incidence names the earlier UUID (Finkok's often leaves it empty). */
    uuidIn307: false,
    /** `stamped` answers a SOAP Fault (Finkok's internal errors come so). */
    stampedFault: false,
  };

  const stampReply = (service: StampService, operation: string, xml: string, uuid: string, list: { code: string; message: string; uuid?: string }[]) =>
    soap(
      service,
      operation,
      f('xml', xml) +
        f('UUID', uuid) +
        f('Fecha', xml ? new Date().toISOString().slice(0, 19) : '') +
        f('CodEstatus', xml && list.length === 0 ? 'Comprobante timbrado satisfactoriamente' : '') +
        f('SatSeal', '') +
        incidencias(list) +
        f('NoCertificadoSAT', ''),
    );

  async function stamp(service: StampService, fields: Record<string, string>, entry: DocumentRequest): Promise<Response> {
    const scenario = state.scenario;
    if (scenario === 'non_xml_502') return answer(entry, 'ambiguous', new Response('Bad Gateway', { status: 502, headers: { 'content-type': 'text/plain' } }));
    if (scenario === 'quota_exhausted')
      return answer(entry, 'provider', stampReply(service, 'stamp', '', '', [{ code: '', message: 'El usuario no cuenta con timbres disponibles' }]));
    const xml = Buffer.from(fields.xml ?? '', 'base64').toString('utf8');
    const sello = selloOf(xml);
    if (!sello) return answer(entry, 'definitive', stampReply(service, 'stamp', '', '', [{ code: '302', message: 'Sello mal formado o inválido' }]));
    // Each service stamps its own kind: a Retenciones sent to `stamp`, or a CFDI to `retentions`, is not what it parses.
    if (SERVICE_OF[documentKindOf(xml)] !== service)
      return answer(entry, 'definitive', stampReply(service, 'stamp', '', '', [{ code: '301', message: 'XML mal formado' }]));
    if (state.requireRegistration) {
      const root = parseXml(xml);
      const rfc = child(root, 'cfdi:Emisor')?.attrs.Rfc ?? child(root, 'retenciones:Emisor')?.attrs.RfcE ?? '';
      if (!registered.has(rfc))
        return answer(entry, 'provider', stampReply(service, 'stamp', '', '', [{ code: '702', message: 'No se encontró el RFC del emisor' }]));
    }
    if (scenario === 'reject') return answer(entry, 'definitive', stampReply(service, 'stamp', '', '', [state.rejection]));
    const earlier = ledger.find(sello);
    if (earlier) {
      const visible = Date.now() >= earlier.visibleAt;
      const previo = { code: '307', message: 'El CFDI contiene un timbre previo', uuid: state.uuidIn307 ? earlier.uuid : '' };
      return visible && scenario !== '307_without_xml' && scenario !== 'stamped_not_found_for_5s'
        ? answer(entry, 'stamped', stampReply(service, 'stamp', earlier.xml, earlier.uuid, [previo]), true)
        : answer(entry, 'duplicate', stampReply(service, 'stamp', '', '', [previo]));
    }
    const result = await sandbox.stamp(xml, { tenantId: 'finkok-account' });
    if (!result.ok) return answer(entry, 'definitive', stampReply(service, 'stamp', '', '', [{ code: '301', message: result.message }]));
    const now = Date.now();
    ledger.add({ sello, uuid: result.tfd.uuid, xml: result.xml, stampedAt: now, visibleAt: scenario === 'stamped_not_found_for_5s' ? now + notFoundMs : now });
    switch (scenario) {
      case 'slow_then_stamped':
        await Bun.sleep(slowMs);
        return answer(entry, 'stamped', stampReply(service, 'stamp', result.xml, result.tfd.uuid, []));
      case 'timeout_after_stamp':
        entry.held = true;
        await new Promise<void>((resolve) => hung.push(resolve));
        return answer(entry, 'ambiguous', new Response('gone', { status: 503 }));
      case '307_with_xml':
        return answer(
          entry,
          'stamped',
          stampReply(service, 'stamp', result.xml, result.tfd.uuid, [{ code: '307', message: 'El CFDI contiene un timbre previo' }]),
        );
      case '307_without_xml':
      case 'stamped_not_found_for_5s':
        return answer(
          entry,
          'duplicate',
          stampReply(service, 'stamp', '', '', [{ code: '307', message: 'El CFDI contiene un timbre previo', uuid: state.uuidIn307 ? result.tfd.uuid : '' }]),
        );
      default:
        return answer(entry, 'stamped', stampReply(service, 'stamp', result.xml, result.tfd.uuid, []));
    }
  }

  function stamped(service: StampService, entry: DocumentRequest): Response {
    if (state.stampedFault)
      return answer(
        entry,
        'ambiguous',
        new Response(
          '<senv:Envelope xmlns:senv="http://schemas.xmlsoap.org/soap/envelope/"><senv:Body><senv:Fault><faultcode>senv:Server</faultcode><faultstring>internal error</faultstring></senv:Fault></senv:Body></senv:Envelope>',
          { status: 500, headers: { 'content-type': 'text/xml; charset=utf-8' } },
        ),
      );
    const earlier = ledger.find(entry.sello);
    if (!earlier || Date.now() < earlier.visibleAt)
      return answer(entry, 'duplicate', stampReply(service, 'stamped', '', '', [{ code: '603', message: 'El CFDI no contiene un timbre previo' }]));
    return answer(entry, 'stamped', stampReply(service, 'stamped', earlier.xml, earlier.uuid, []), true);
  }

  function queryPending(fields: Record<string, string>, entry: DocumentRequest): Response {
    const found = ledger.findUuid((fields.uuid ?? '').toUpperCase());
    if (!found || Date.now() < found.visibleAt)
      return answer(entry, 'duplicate', soap('stamp', 'query_pending', f('error', `UUID ${fields.uuid} No Encontrado`)));
    return answer(
      entry,
      'stamped',
      soap('stamp', 'query_pending', f('status', 'F') + f('xml', found.xml) + f('uuid', found.uuid) + f('uuid_status', 'F') + f('attempts', '1')),
      true,
    );
  }

  /** SAT's answer through `cancel` (a CFDI: 201, 205) or `retentions` (a retención: 1201, 1205, its acuse in retencionpago/1). */
  function cancel(service: 'cancel' | 'retentions', fields: Record<string, string>): Response {
    const xml = Buffer.from(fields.xml ?? '', 'base64').toString('utf8');
    const uuid = child(child(parseXml(xml), 'Folios') ?? { name: '', attrs: {}, children: [] }, 'Folio')?.attrs.UUID ?? '';
    cancellations.push({ service, xml, uuid });
    if (state.cancelMode === '5xx') return new Response('upstream', { status: 502 });
    const prefix = service === 'retentions' ? '1' : '';
    const code = `${prefix}${state.cancelMode === 'reject' ? '205' : '201'}`;
    const ns = service === 'retentions' ? 'http://www.sat.gob.mx/esquemas/retencionpago/1' : 'http://cancelacfd.sat.gob.mx';
    const acuse = `<Acuse xmlns="${ns}" Fecha="${new Date().toISOString().slice(0, 19)}"><Folios><UUID>${uuid}</UUID><EstatusUUID>${code}</EstatusUUID></Folios></Acuse>`;
    if (code.endsWith('201')) acuses.set(uuid, acuse);
    return soap(
      service,
      'cancel_signature',
      `<s0:Folios><s0:Folio>${f('UUID', uuid)}${f('EstatusUUID', code)}${f('EstatusCancelacion', '')}</s0:Folio></s0:Folios>` +
        f('Acuse', state.cancelMode === 'no_acuse' ? '' : acuse) +
        f('Fecha', new Date().toISOString()) +
        f('RfcEmisor', 'EKU9003173C9'),
    );
  }

  function receipt(fields: Record<string, string>): Response {
    const acuse = acuses.get(fields.uuid ?? '');
    return soap(
      'cancel',
      'get_receipt',
      f('success', acuse ? 'true' : 'false') +
        f('uuid', fields.uuid ?? '') +
        f('receipt', acuse ?? '') +
        f('taxpayer_id', fields.taxpayer_id ?? '') +
        f('error', acuse ? '' : 'No encontrado'),
    );
  }

  function add(fields: Record<string, string>): Response {
    if (state.registrationFails) return soap('registration', 'add', f('success', 'false') + f('message', 'La cuenta no tiene permisos de socio'));
    registered.add(fields.taxpayer_id ?? '');
    return soap('registration', 'add', f('success', 'true') + f('message', 'Account Created successfully'));
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const body = await req.text();
    if (url.pathname === '/ConsultaCFDIService.svc') {
      const uuid = /[?&]id=([^&]+)/.exec(/<c:expresionImpresa>([^<]*)<\/c:expresionImpresa>/.exec(body)?.[1] ?? '')?.[1] ?? '';
      const cancelled = acuses.has(uuid);
      return new Response(
        consultaReply({
          Estado: cancelled ? 'Cancelado' : 'Vigente',
          EsCancelable: 'Cancelable sin aceptación',
          EstatusCancelacion: cancelled ? 'Cancelado sin aceptación' : '',
        }),
        { headers: { 'content-type': 'text/xml; charset=utf-8' } },
      );
    }
    const service = /^\/servicios\/soap\/(stamp|cancel|registration|retentions)$/.exec(url.pathname)?.[1];
    if (!service) return new Response('not found', { status: 404 });
    const soapBody = parser.parse(body)?.Envelope?.Body;
    const operation = soapBody && typeof soapBody === 'object' ? Object.keys(soapBody)[0] : undefined;
    if (!operation) return new Response('not SOAP', { status: 400 });
    const raw = soapBody[operation] as Record<string, unknown>;
    const fields = Object.fromEntries(Object.entries(raw && typeof raw === 'object' ? raw : {}).map(([k, v]) => [k, String(v)]));
    requests.push({ path: url.pathname, soapAction: req.headers.get('soapaction'), operation, fields, body });
    const about =
      operation === 'stamp' || operation === 'stamped'
        ? (selloOf(Buffer.from(fields.xml ?? '', 'base64').toString('utf8')) ?? '')
        : operation === 'query_pending'
          ? (ledger.findUuid((fields.uuid ?? '').toUpperCase())?.sello ?? '')
          : undefined;
    const entry = about === undefined ? undefined : log.open(operation, about);
    if (entry) openedIn.set(entry, generation);
    const user = fields.username ?? fields.reseller_username;
    const pass = fields.password ?? fields.reseller_password;
    if (user !== username || pass !== password) {
      if (operation === 'stamp' || operation === 'stamped')
        return answer(entry!, 'provider', stampReply(service as StampService, operation, '', '', [{ code: '300', message: 'Usuario o contraseña inválidos' }]));
      return soap(service, operation, f('CodEstatus', '300 - Usuario o contraseña inválidos'));
    }
    if (state.scenario === 'non_xml_502' && operation !== 'stamp') {
      const res = new Response('Bad Gateway', { status: 502 });
      return entry ? answer(entry, 'ambiguous', res) : res;
    }
    // What each service offers (the retentions service has no query_pending; its get_receipt is not asked).
    switch (`${service} ${operation}`) {
      case 'stamp stamp':
      case 'retentions stamp':
        return stamp(service as StampService, fields, entry!);
      case 'stamp stamped':
      case 'retentions stamped':
        return stamped(service as StampService, entry!);
      case 'stamp query_pending':
        return queryPending(fields, entry!);
      case 'cancel cancel_signature':
      case 'retentions cancel_signature':
        return cancel(service as 'cancel' | 'retentions', fields);
      case 'cancel get_receipt':
        return receipt(fields);
      case 'registration add':
        return add(fields);
      default:
        return new Response(`unknown operation ${operation} of ${service}`, { status: 400 });
    }
  }

  const serve = (port: number) => Bun.serve({ hostname: '127.0.0.1', port, idleTimeout: 0, fetch: handle });
  let server: ReturnType<typeof Bun.serve> | undefined = serve(0);
  const port = server.port!;
  const release = () => hung.splice(0).forEach((r) => r());

  return {
    url: `http://127.0.0.1:${port}`,
    /** SAT's consultation, served here too (Vigente; Cancelado once a cancellation was received). */
    satConsultaUrl: `http://127.0.0.1:${port}/ConsultaCFDIService.svc`,
    username,
    password,
    ledger,
    log,
    requests,
    cancellations,
    registered,
    state,
    get scenario() {
      return state.scenario;
    },
    setScenario(next: FinkokScenario) {
      if (next === 'down' && server) {
        generation++;
        release();
        server.stop(true);
        server = undefined;
      }
      if (next !== 'down' && !server) server = serve(port);
      state.scenario = next;
    },
    close() {
      generation++;
      release();
      server?.stop(true);
      server = undefined;
    },
  };
}

import { verifyEnveloped } from '../../src/cfdi/cancellation.ts';
import { child, parseXml } from '../../src/cfdi/xml.ts';
import { createSandboxPac } from '../../src/pac/sandbox.ts';
import { type DocumentKind, documentKindOf } from '../../src/pac/stamped-reply.ts';
import { csdFiles, testSandboxSat } from '../helpers.ts';
import { consultaReply, MockLedger, RequestLog } from './mock-ledger.ts';

/**
 * A fake SW PAC on a real socket (127.0.0.1, a port from the kernel). Stamps are made by the sandbox signer and kept in
 * `ledger` per document, so a duplicate gets "307 … timbre previo" with the earlier stamp, as the real PAC does.
 * `state.modes` scripts the next stamp answers one by one; the scenario holds until changed: `ok`, `down` (the port
 * refuses connections) or `timeout_after_stamp` (stamps, never answers). SAT's consultation is served too. `log` keeps
 * every stamp request per document, with its time and its answer. Retenciones 2.0 go to /retencion/stamp/v3/b64 (the
 * stamped document in `data.retencion`) and /retencion/cancel/xml (SAT's retención codes, 1201 or 1205), under the same
 * modes; each stamping path refuses the other's kind.
 */
type Mode = 'ok' | 'reject' | '5xx' | 'hang' | 'malformed' | 'no-cfdi' | 'foreign-stamp' | 'dup-without-stamp';
export type SwScenario = 'ok' | 'down' | 'timeout_after_stamp';

/** The live CSD the issuer uploads (`issuer(…, { csd: ['live'] })`): a cancellation request verifies against it. */
const CSD_CER = csdFiles('EKU9003173C9_live', 'EKU9003173C9').cer;
const STAMP_PATHS: Record<string, DocumentKind> = { '/cfdi33/stamp/v4/b64': 'cfdi', '/retencion/stamp/v3/b64': 'retencion' };
const CANCEL_PATHS: Record<string, DocumentKind> = { '/cfdi33/cancel/xml': 'cfdi', '/retencion/cancel/xml': 'retencion' };
/** What `reject` answers: a data error from SAT's matrix of each kind. */
const REJECTION: Record<DocumentKind, string> = {
  cfdi: 'CFDI40108 - El TipoDeComprobante es I, E o N, el importe no es correcto.',
  retencion: 'Reten20101 - El resultado de la digestión debe ser igual al resultado de la desencripción del sello.',
};

export function createSwMock(o: { user?: string; password?: string } = {}) {
  const user = o.user ?? 'demo';
  const password = o.password ?? 'secret';
  const sandbox = createSandboxPac(testSandboxSat());
  const ledger = new MockLedger('sw');
  const log = new RequestLog('sw');
  const answer = RequestLog.answer;
  const state = { modes: [] as Mode[], requests: 0, tokens: 0, scenario: 'ok' as SwScenario };
  /** The fake SAT behind it: scripted cancellation answers and consultation states per UUID. */
  const sat = {
    cancelModes: [] as ('ok' | 'reject' | '5xx')[],
    cancelRequests: [] as { path: string; xml: string; verifies: boolean }[],
    states: new Map<string, { Estado: string; EsCancelable: string; EstatusCancelacion: string }[]>(),
    consultDown: false,
    expressions: [] as string[],
  };
  const hung: (() => void)[] = [];

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname === '/security/authenticate') {
      if (req.headers.get('user') !== user || req.headers.get('password') !== password)
        return Response.json({ status: 'error', message: 'bad credentials' }, { status: 401 });
      state.tokens++;
      return Response.json({ status: 'success', data: { token: `T${state.tokens}` } });
    }
    if (url.pathname === '/ConsultaCFDIService.svc') {
      if (sat.consultDown) return new Response('unavailable', { status: 500 });
      if (req.headers.get('soapaction') !== '"http://tempuri.org/IConsultaCFDIService/Consulta"') return new Response('no action', { status: 400 });
      const expression = /<c:expresionImpresa>([^<]*)<\/c:expresionImpresa>/.exec(await req.text())?.[1] ?? '';
      sat.expressions.push(expression);
      const uuid = /[?&]id=([^&]+)/.exec(expression)?.[1] ?? '';
      const script = sat.states.get(uuid) ?? [];
      const now = script.length > 1 ? script.shift()! : (script[0] ?? { Estado: 'Vigente', EsCancelable: 'Cancelable con aceptación', EstatusCancelacion: '' });
      return new Response(consultaReply(now), { headers: { 'content-type': 'text/xml; charset=utf-8' } });
    }
    const cancelKind = CANCEL_PATHS[url.pathname];
    if (cancelKind) {
      if (!req.headers.get('authorization')?.startsWith('bearer T')) return Response.json({ status: 'error', message: 'unauthorized' }, { status: 401 });
      const xml = await ((await req.formData()).get('xml') as Blob).text();
      sat.cancelRequests.push({ path: url.pathname, xml, verifies: verifyEnveloped(xml, CSD_CER) });
      const uuid = child(child(parseXml(xml), 'Folios')!, 'Folio')!.attrs.UUID!;
      const mode = sat.cancelModes.shift() ?? 'ok';
      const prefix = cancelKind === 'retencion' ? '1' : '';
      if (mode === '5xx') return new Response('upstream', { status: 502 });
      if (mode === 'reject')
        return Response.json({ status: 'error', message: `${prefix}205 - UUID No existe`, data: { uuid: { [uuid]: `${prefix}205` } } }, { status: 400 });
      return Response.json({
        status: 'success',
        data: { acuse: `<Acuse><Folios><UUID>${uuid}</UUID><EstatusUUID>${prefix}201</EstatusUUID></Folios></Acuse>`, uuid: { [uuid]: `${prefix}201` } },
      });
    }
    const kind = STAMP_PATHS[url.pathname];
    if (!kind) return new Response('not found', { status: 404 });
    if (!req.headers.get('authorization')?.startsWith('bearer T')) return Response.json({ status: 'error', message: 'unauthorized' }, { status: 401 });
    state.requests++;
    const xml = Buffer.from(await ((await req.formData()).get('xml') as Blob).text(), 'base64').toString('utf8');
    const mode = state.modes.shift() ?? 'ok';
    const sello = /\sSello="([^"]*)"/.exec(xml)![1]!;
    // The reply's field is named for the kind (data.cfdi, data.retencion); the other kind's document is malformed here.
    if (documentKindOf(xml) !== kind)
      return answer(log.open('stamp', sello), 'definitive', Response.json({ status: 'error', message: '301. XML mal formado' }, { status: 400 }));
    const entry = log.open('stamp', sello);
    const previous = ledger.find(sello);
    if (mode === '5xx') return answer(entry, 'ambiguous', new Response('upstream error', { status: 503 }));
    if (mode === 'malformed') return answer(entry, 'ambiguous', new Response('<html>gateway</html>', { status: 200 }));
    if (mode === 'no-cfdi') return answer(entry, 'ambiguous', Response.json({ status: 'success', data: { uuid: 'x' } }));
    if (mode === 'reject') return answer(entry, 'definitive', Response.json({ status: 'error', message: REJECTION[kind] }, { status: 400 }));
    if (mode === 'dup-without-stamp')
      return answer(entry, 'duplicate', Response.json({ status: 'error', message: '307. El comprobante contiene un timbre previo.' }, { status: 400 }));
    if (previous)
      return answer(
        entry,
        'stamped',
        Response.json(
          { status: 'error', message: '307. El comprobante contiene un timbre previo.', data: { [kind]: Buffer.from(previous.xml).toString('base64') } },
          { status: 400 },
        ),
        true,
      );
    const result = await sandbox.stamp(xml, { tenantId: 'sw-account' });
    if (!result.ok) return answer(entry, 'definitive', Response.json({ status: 'error', message: '302. Sello mal formado' }, { status: 400 }));
    if (mode === 'foreign-stamp')
      return answer(entry, 'ambiguous', Response.json({ status: 'success', data: { [kind]: result.xml.replace(`SelloCFD="${sello}"`, 'SelloCFD="AAAA"') } }));
    const now = Date.now();
    ledger.add({ sello, uuid: result.tfd.uuid, xml: result.xml, stampedAt: now, visibleAt: now });
    if (state.scenario === 'timeout_after_stamp') {
      entry.held = true;
      await new Promise<void>((resolve) => hung.push(resolve));
      return answer(entry, 'ambiguous', new Response('gone', { status: 503 }));
    }
    // "hang": the stamp happens, but the answer comes after the client gave up.
    if (mode === 'hang') await Bun.sleep(1500);
    return answer(entry, 'stamped', Response.json({ status: 'success', data: { [kind]: Buffer.from(result.xml).toString('base64'), uuid: result.tfd.uuid } }));
  }

  const serve = (port: number) => Bun.serve({ hostname: '127.0.0.1', port, idleTimeout: 0, fetch: handle });
  let server: ReturnType<typeof Bun.serve> | undefined = serve(0);
  const port = server.port!;
  const release = () => hung.splice(0).forEach((r) => r());
  return {
    url: `http://127.0.0.1:${port}`,
    satConsultaUrl: `http://127.0.0.1:${port}/ConsultaCFDIService.svc`,
    user,
    password,
    ledger,
    log,
    state,
    sat,
    setScenario(next: SwScenario) {
      if (next === 'down' && server) {
        release();
        server.stop(true);
        server = undefined;
      }
      if (next !== 'down' && !server) server = serve(port);
      state.scenario = next;
    },
    close() {
      release();
      server?.stop(true);
      server = undefined;
    },
  };
}

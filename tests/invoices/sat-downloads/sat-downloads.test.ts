import { afterAll, describe, expect, test } from 'bun:test';
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { satDownloadPackages, satMetadata } from '../../../src/db/schema/index.ts';
import { createDescargaMasivaClient } from '../../../src/pac/descarga-masiva.ts';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { CORPUS } from '../../cfdi/corpus.ts';
import { createTestApp, csdFiles, csdForm, issuer, TENANTS } from '../../helpers.ts';
import { SCENARIOS, startSatMock, type SatDocument } from '../../sat-mock/sat-mock.ts';

/**
 * POST /sat-downloads end to end against the SAT mock (issue 39, acceptance 2): a live-mode tenant with SAT's test
 * e.firma of EKU9003173C9, the app pointed at the mock, the job queue stepped by hand and the clock moved by the test.
 */

const RFC = 'EKU9003173C9';
const FIEL = csdFiles('EKU9003173C9_FIEL', RFC);
const sample = (name: string) => readFileSync(join(import.meta.dir, '..', '..', 'fixtures', 'sat', 'samples', name), 'utf8');
const asReceived = (xml: string, o: { emisor?: string; uuid?: string } = {}) => {
  let out = xml.replace(/(<cfdi:Receptor\b[^>]*?\bRfc=")[^"]*"/, `$1${RFC}"`);
  if (o.emisor) out = out.replace(/(<cfdi:Emisor\b[^>]*?\bRfc=")[^"]*"/, `$1${o.emisor}"`);
  if (o.uuid) out = out.replace(/\bUUID="[^"]*"/, `UUID="${o.uuid}"`);
  return out;
};
const RECEIVED = [
  asReceived(sample('cfdi40-pago20-sandbox-WATM.xml')),
  asReceived(sample('cfdi40-ingreso-iva-sandbox-EKU.xml'), { emisor: 'ICV060329BY0', uuid: '5A2B7E0C-9D41-4F3A-8E6B-1C2D3E4F5A6B' }),
  asReceived(sample('cfdi40-ingreso-retenciones-sandbox-EKU.xml'), { emisor: 'ICV060329BY0', uuid: '6B3C8F1D-0E52-4A4B-9F7C-2D3E4F5A6B7C' }),
];
const documents: SatDocument[] = RECEIVED.map((xml) => ({ xml }));
const POLL = 300;
const STALLED = 3600;

const t = await createTestApp({ wakeOnEnqueue: false });
const mock = startSatMock({ documents, now: () => t.clock.now });
afterAll(() => mock.stop());

/** What the intake was handed; `fail` makes the next call throw (a crash between download and processing). */
const intake = { calls: [] as { names: string[]; satDownloadId: string }[], fail: 0 };
/** `lose`: the next N Descargar answers are lost after SAT served them (the connection dropped on the way back). */
const network = { lose: 0 };
const lossyFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const res = await fetch(input, init);
  const action = new Headers(init?.headers).get('soapaction') ?? '';
  if (network.lose > 0 && action.includes('/Descargar')) {
    network.lose--;
    await res.arrayBuffer();
    throw new Error('connection reset after the answer');
  }
  return res;
}) as typeof fetch;
const app = await createTestApp({
  db: t.db,
  wakeOnEnqueue: false,
  satDownloads: { url: mock.url, downloadUrl: mock.downloadUrl, pollSeconds: POLL, stalledSeconds: STALLED, fetch: lossyFetch },
  async satIntake(_scope, files, o) {
    if (intake.fail > 0) {
      intake.fail--;
      throw new Error('killed between download and processing');
    }
    intake.calls.push({ names: files.map((f) => f.name).sort(), satDownloadId: o.satDownloadId });
  },
});
mock.control.tokenSeconds = 3600;
const now = () => app.clock.now;
// One clock for the app and the mock.
t.clock.now = app.clock.now;
Object.defineProperty(t.clock, 'now', { get: () => app.clock.now, set: () => {} });

const owner = await issuer(app, { keys: ['test', 'live'] });
const put = await app.app.request('/api/v1/fiel', { method: 'PUT', headers: { authorization: `Bearer ${owner.token}` }, body: csdForm(FIEL) });
expect(put.status).toBe(201);

const post = (body: unknown, token = owner.live) => app.call('POST', '/sat-downloads', { token, body });
const get = (id: string, token = owner.live) => app.call('GET', `/sat-downloads/${id}`, { token });
const TERMINAL = ['downloaded', 'rejected', 'empty', 'expired', 'stalled', 'failed'];

/** Runs the queue, moving the clock one poll at a time, until the request ends (or `polls` run out). */
async function settle(id: string, polls = 20) {
  for (let i = 0; i < polls; i++) {
    await app.app.worker.drain();
    const r = (await get(id)).json;
    if (TERMINAL.includes(r.status)) return r;
    app.clock.advance(POLL * 1000);
  }
  return (await get(id)).json;
}

let second = 0;
/** A period no other test asked for: one second more is another period for SAT. */
const period = (o: Record<string, unknown> = {}) => {
  second++;
  return { direction: 'received', kind: 'xml', desde: `2024-01-01T00:00:${String(second).padStart(2, '0')}`, hasta: '2025-12-31T23:59:59', ...o };
};
const solicitudes = () => mock.control.calls.filter((c) => c.service === 'SolicitaDescargaService.svc' || c.action.startsWith('SolicitaDescarga')).length;

/** SAT's client, used by the test itself to spend a period's requests or a package's downloads behind the app's back. */
const key = createPrivateKey({ key: FIEL.key, format: 'der', type: 'pkcs8', passphrase: FIEL.password.trim() });
const direct = createDescargaMasivaClient(
  { rfc: RFC, certificateDer: FIEL.cer, sign: async (data, digest) => sign(digest, Buffer.from(data), key).toString('base64') },
  { url: mock.url, downloadUrl: mock.downloadUrl, now },
);

describe('POST /sat-downloads: the flow against SAT', () => {
  test('received XML: 202 requested → accepted → in_progress → finished → downloaded; two packages; every XML handed to the intake once', async () => {
    mock.control.scenario = SCENARIOS.finished(2);
    const res = await post(period());
    expect(res.status).toBe(202);
    const [record] = res.json.data;
    expect(record).toMatchObject({ status: 'requested', direction: 'received', kind: 'xml', request_number: 1, desde: expect.any(String) });
    await app.app.worker.drain();
    expect((await get(record.id)).json).toMatchObject({ status: 'accepted', estado_solicitud: 1, cod_estatus: '5000' });
    app.clock.advance(POLL * 1000);
    await app.app.worker.drain();
    expect((await get(record.id)).json.status).toBe('in_progress');
    const done = await settle(record.id);
    expect(done).toMatchObject({ status: 'downloaded', estado_solicitud: 3, numero_cfdis: 3, error: null });
    expect(done.packages).toHaveLength(2);
    const mine = intake.calls.filter((c) => c.satDownloadId === record.id);
    expect(mine).toHaveLength(2);
    expect(mine.flatMap((c) => c.names).sort()).toHaveLength(3);
    const packages = await app.db.select().from(satDownloadPackages).where(eq(satDownloadPackages.satDownloadId, record.id));
    expect(packages.map((p) => [p.downloads, p.bytes !== null, p.processedAt !== null])).toEqual([
      [1, true, true],
      [1, true, true],
    ]);
  });

  test('received metadata: its rows stored in sat_metadata, one per UUID; a later listing updates them', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    const r = await settle((await post(period({ kind: 'metadata' }))).json.data[0].id);
    expect(r.status).toBe('downloaded');
    const rows = await app.db.select().from(satMetadata).where(eq(satMetadata.tenantId, owner.tenant.id));
    expect(rows.map((x) => x.uuid).sort()).toEqual(RECEIVED.map((xml) => /\bUUID="([^"]+)"/.exec(xml)![1]!.toUpperCase()).sort());
    expect(rows.every((x) => x.estatus === '1' && x.rfcReceptor === RFC && x.environment === 'live')).toBe(true);
    mock.control.documents[1]!.fechaCancelacion = '2025-03-01T10:00:00';
    expect((await settle((await post(period({ kind: 'metadata' }))).json.data[0].id)).status).toBe('downloaded');
    mock.control.documents[1]!.fechaCancelacion = undefined;
    const [cancelled] = await app.db.select().from(satMetadata).where(eq(satMetadata.uuid, '5A2B7E0C-9D41-4F3A-8E6B-1C2D3E4F5A6B'));
    expect([cancelled!.estatus, cancelled!.fechaCancelacion]).toEqual(['0', '2025-03-01 10:00:00']);
  });
});

describe('each failure ends in its documented state', () => {
  test('5004 (nothing in the period) → empty; a second request is allowed; a third is a 409 naming 5002, never sent', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    const p = period({ desde: '2021-01-01T00:00:00', hasta: '2021-02-01T00:00:00' });
    const first = await settle((await post(p)).json.data[0].id);
    expect(first).toMatchObject({ status: 'empty', estado_solicitud: 5, codigo_estado_solicitud: '5004' });
    const again = await post(p);
    expect(again.status).toBe(202);
    expect(again.json.data[0].request_number).toBe(2);
    expect((await settle(again.json.data[0].id)).status).toBe('empty');
    const sent = solicitudes();
    const third = await post(p);
    expect(third.status).toBe(409);
    expect(third.json.error.details[0]).toMatchObject({ field: 'desde', rule: '5002' });
    expect(third.json.error.details[0].issue).toContain('at most twice');
    expect(solicitudes()).toBe(sent);
  });

  test('a downloaded period is not asked again (409 5002); a pending one neither (409 5005)', async () => {
    mock.control.scenario = SCENARIOS.stuck();
    const p = period();
    const pending = (await post(p)).json.data[0];
    const twice = await post(p);
    expect([twice.status, twice.json.error.details[0].rule]).toEqual([409, '5005']);
    mock.control.scenario = SCENARIOS.finished(1, 0);
    const q = period();
    await settle((await post(q)).json.data[0].id);
    const after = await post(q);
    expect([after.status, after.json.error.details[0].rule]).toEqual([409, '5002']);
    expect(pending.status).toBe('requested');
  });

  test('5002 from SAT itself (the period spent elsewhere) → rejected with SAT code and message', async () => {
    const p = period({ kind: 'metadata' });
    const q = { direction: 'received', kind: 'metadata', desde: p.desde, hasta: p.hasta } as const;
    await direct.solicita(q);
    await direct.solicita(q);
    const r = await settle((await post(p)).json.data[0].id);
    expect(r).toMatchObject({ status: 'rejected', cod_estatus: '5002', mensaje: 'Se han agotado las solicitudes de por vida' });
  });

  test('5003 (over SAT limit) → rejected; 1 → 5 → rejected; stuck at 1 past SAT_DOWNLOAD_STALLED_SECONDS → stalled', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    mock.control.limits.CFDI = 1;
    expect(await settle((await post(period())).json.data[0].id)).toMatchObject({ status: 'rejected', codigo_estado_solicitud: '5003' });
    mock.control.limits.CFDI = 200_000;
    mock.control.scenario = SCENARIOS.rejectedAfter(1);
    expect(await settle((await post(period())).json.data[0].id)).toMatchObject({ status: 'rejected', estado_solicitud: 5 });
    mock.control.scenario = SCENARIOS.stuck();
    const stalled = await settle((await post(period())).json.data[0].id, STALLED / POLL + 3);
    expect(stalled).toMatchObject({ status: 'stalled', estado_solicitud: 1 });
    expect(stalled.error).toContain(String(STALLED));
  });

  test('404 from verify and from download: asked again at the next poll, then downloaded; HTTP 500 from Autenticacion: retried', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    mock.control.verify404 = 1;
    mock.control.download404 = 1;
    mock.control.authHttp500 = 1;
    mock.control.tokens.clear();
    const r = await settle((await post(period())).json.data[0].id);
    expect(r.status).toBe('downloaded');
    const [pkg] = await app.db.select().from(satDownloadPackages).where(eq(satDownloadPackages.satDownloadId, r.id));
    expect(pkg!.downloads).toBe(1);
    expect(mock.control.verify404 + mock.control.download404 + mock.control.authHttp500).toBe(0);
  });

  test('InvalidSecurity from Autenticacion → failed, saying so', async () => {
    mock.control.authFaults = 1;
    // SAT forgets the token the app holds (300): the client authenticates again and gets the fault.
    mock.control.tokens.clear();
    const r = await settle((await post(period())).json.data[0].id);
    expect(r.status).toBe('failed');
    expect(r.error).toContain('InvalidSecurity');
  });

  test('a package SAT already served twice ("Maximo de descargas permitidas.") → failed, the third download never retried', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 1);
    const record = (await post(period())).json.data[0];
    await app.app.worker.drain();
    const id = (await get(record.id)).json.id_solicitud;
    const v = await direct.verifica(id);
    await direct.descargar(v.paquetes[0]!);
    await direct.descargar(v.paquetes[0]!);
    const r = await settle(record.id);
    expect(r.status).toBe('failed');
    expect(r.error).toContain('Maximo de descargas permitidas.');
  });
});

describe('a crash between download and processing', () => {
  test('the package bytes are kept; the re-run processes them from the rows without downloading again', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    intake.fail = 1;
    const record = (await post(period())).json.data[0];
    await app.app.worker.drain();
    const [kept] = await app.db.select().from(satDownloadPackages).where(eq(satDownloadPackages.satDownloadId, record.id));
    expect([kept!.downloads, (kept!.bytes?.length ?? 0) > 0, kept!.processedAt]).toEqual([1, true, null]);
    expect((await get(record.id)).json.status).toBe('finished');
    const r = await settle(record.id);
    expect(r.status).toBe('downloaded');
    const [after] = await app.db.select().from(satDownloadPackages).where(eq(satDownloadPackages.satDownloadId, record.id));
    expect(after!.downloads).toBe(1);
    expect(mock.control.solicitudes.get(r.id_solicitud)!.downloads.get(after!.packageId)).toBe(1);
    expect(intake.calls.filter((c) => c.satDownloadId === record.id)).toHaveLength(1);
  });
});

describe('a download lost on the way back', () => {
  test('counted before it is made: asked again once (SAT served 2), then stored; processed once', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    network.lose = 1;
    const r = await settle((await post(period())).json.data[0].id);
    expect(r.status).toBe('downloaded');
    const [p] = await app.db.select().from(satDownloadPackages).where(eq(satDownloadPackages.satDownloadId, r.id));
    expect(p!.downloads).toBe(2);
    expect(mock.control.solicitudes.get(r.id_solicitud)!.downloads.get(p!.packageId)).toBe(2);
  });

  test('lost twice: never asked a third time; the request fails saying why, SAT saw two downloads', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    network.lose = 2;
    const r = await settle((await post(period())).json.data[0].id);
    expect(r.status).toBe('failed');
    expect(r.error).toContain('at most twice');
    const [p] = await app.db.select().from(satDownloadPackages).where(eq(satDownloadPackages.satDownloadId, r.id));
    expect([p!.downloads, p!.bytes]).toEqual([2, null]);
    expect(mock.control.solicitudes.get(r.id_solicitud)!.downloads.get(p!.packageId)).toBe(2);
  });

  test('one Autentica serves the polls of a request while its token lives', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 2);
    const before = mock.control.calls.filter((c) => c.service === 'autenticacion').length;
    // The app's clock moves one poll (300 s) at a time; the client renews a token 240 s after it was made.
    const r = await settle((await post(period())).json.data[0].id);
    expect(r.status).toBe('downloaded');
    const auths = mock.control.calls.filter((c) => c.service === 'autenticacion').length - before;
    expect(auths).toBeLessThanOrEqual(3);
  });
});

describe('pre-checks, FIEL, roles and isolation', () => {
  test("v1.5's rules before anything is sent: 400 naming the field with the rule", async () => {
    const sent = solicitudes();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ desde: '2025-02-01', hasta: '2025-01-01' }, 'hasta', 'strictly before'],
      [{ desde: '2025-01-01T00:00:00', hasta: '2025-01-01T00:00:00' }, 'hasta', 'strictly before'],
      [{ desde: '2019-01-01', hasta: '2019-02-01' }, 'desde', 'six years'],
      [{ desde: '2025-02-30', hasta: '2025-03-01' }, 'desde', 'must be a date'],
      [{ rfc: 'ICV060329BY0,AAA010101AAA' }, 'rfc', 'at most one counterparty'],
      [{ rfc: 'NOT-AN-RFC' }, 'rfc', 'not a valid RFC'],
      [{ tipo: 'X' }, 'tipo', 'c_TipoDeComprobante'],
    ];
    for (const [over, field, issue] of cases) {
      const res = await post({ direction: 'received', kind: 'xml', desde: '2025-01-01', hasta: '2025-01-31', ...over });
      expect(res.status).toBe(400);
      expect(res.json.error.details.find((d: { field: string }) => d.field === field)?.issue).toContain(issue);
    }
    expect((await post({ direction: 'sideways', kind: 'xml', desde: '2025-01-01', hasta: '2025-01-31' })).status).toBe(400);
    expect(solicitudes()).toBe(sent);
  });

  test('no FIEL → 409 saying PUT /fiel; VIEWER reads but cannot request; another tenant sees nothing', async () => {
    const other = await issuer(app, { keys: ['live'], tenant: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA' } });
    const none = await post(period(), other.live);
    expect(none.status).toBe(409);
    expect(none.json.error.details[0].issue).toContain('PUT /fiel');
    const mine = (await post(period({ kind: 'metadata' }))).json.data[0];
    expect((await get(mine.id, other.live)).status).toBe(404);
    expect((await app.call('GET', '/sat-downloads', { token: other.live })).json.data).toEqual([]);
    const viewer = await owner.userWithRole('VIEWER');
    expect((await post(period(), viewer.token)).status).toBe(403);
    expect((await app.call('GET', '/sat-downloads', { token: viewer.token })).status).toBe(200);
    // A test-mode credential sees only test-mode requests.
    expect((await get(mine.id, owner.key)).status).toBe(404);
  });

  test('GET /sat-downloads pages with a cursor', async () => {
    const first = await app.call('GET', '/sat-downloads?limit=2', { token: owner.live });
    expect(first.json.data).toHaveLength(2);
    expect(first.json.pagination.has_more).toBe(true);
    const next = await app.call('GET', `/sat-downloads?limit=2&cursor=${first.json.pagination.next_cursor}`, { token: owner.live });
    expect(next.json.data[0].id > first.json.data[1].id).toBe(true);
  });
});

describe('test mode (sk_test_): the simulator answers from the sandbox, never SAT', () => {
  test("issued: the tenant's own test CFDI; received: other tenants' test CFDI to its RFC; the same job code, no call to SAT", async () => {
    const eku = await issuer(app, { keys: ['test'], csd: ['test'] });
    expect((await app.app.request('/api/v1/fiel', { method: 'PUT', headers: { authorization: `Bearer ${eku.key}` }, body: csdForm(FIEL) })).status).toBe(201);
    const funk = await issuer(app, { keys: ['test'], csd: ['test'], tenant: TENANTS.FUNK });
    const invoice = CORPUS.find(([name]) => name === 'IVA 16 %')![1];
    const toEku = { ...invoice, receptor: { rfc: RFC, nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'G03' } };
    const received = await app.call('POST', '/cfdis', { token: funk.key, body: toEku });
    expect(received.status).toBe(201);
    const issued = await app.call('POST', '/cfdis', { token: eku.key, body: invoice });
    expect(issued.status).toBe(201);
    const day = (d: number) => localDateTime(new Date(now().getTime() + d * 86_400_000), 'America/Mexico_City').slice(0, 10);
    const span = { desde: day(-1), hasta: day(1) };

    const meta = (await app.call('POST', '/sat-downloads', { token: eku.key, body: { direction: 'issued', kind: 'metadata', ...span } })).json.data[0];
    await app.app.worker.drain();
    expect((await app.call('GET', `/sat-downloads/${meta.id}`, { token: eku.key })).json).toMatchObject({ status: 'downloaded', numero_cfdis: 1 });
    const [row] = await app.db.select().from(satMetadata).where(eq(satMetadata.tenantId, eku.tenant.id));
    expect(row).toMatchObject({ uuid: issued.json.uuid.toUpperCase(), rfcEmisor: RFC, rfcReceptor: 'ICV060329BY0', estatus: '1', environment: 'test' });

    const xml = (await app.call('POST', '/sat-downloads', { token: eku.key, body: { direction: 'received', kind: 'xml', ...span } })).json.data[0];
    await app.app.worker.drain();
    expect((await app.call('GET', `/sat-downloads/${xml.id}`, { token: eku.key })).json).toMatchObject({ status: 'downloaded', numero_cfdis: 1 });
    const handed = intake.calls.filter((c) => c.satDownloadId === xml.id);
    expect(handed.flatMap((c) => c.names)).toEqual([`${received.json.uuid.toUpperCase()}.xml`]);
    // The simulator's ids; SAT (the mock) never saw these requests.
    for (const id of [meta.id, xml.id]) {
      const solicitud = (await app.call('GET', `/sat-downloads/${id}`, { token: eku.key })).json.id_solicitud;
      expect(solicitud).toStartWith('sandbox-');
      expect(mock.control.solicitudes.has(solicitud)).toBe(false);
    }
  });
});

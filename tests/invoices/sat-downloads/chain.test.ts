import { afterAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { receivedCfdis, satDownloadPackages, satDownloads, satMetadata } from '../../../src/db/schema/index.ts';
import { enqueue } from '../../../src/jobs/queue.ts';
import { SAT_DOWNLOAD_JOB } from '../../../src/invoices/sat-downloads/service.ts';
import { createTestApp, csdFiles, csdForm, ingreso, issuer, TENANTS, testSandboxSat } from '../../helpers.ts';
import { SCENARIOS, startSatMock } from '../../sat-mock/sat-mock.ts';

/**
 * Descarga Masiva → received-CFDI intake end to end (issue 39, acceptance 2), with the real intake (no fake
 * `satIntake`): CFDIs stamped by the sandbox of another tenant (FUNK671228PH6) to EKU9003173C9, served by the SAT mock
 * (live) or by the simulator (test), downloaded in packages and found in GET /received-cfdis.
 */

const RFC = 'EKU9003173C9';
const FIEL = csdFiles('EKU9003173C9_FIEL', RFC);
const POLL = 300;
const sandbox = testSandboxSat();

let clock = () => new Date();
// The repository knows the sandbox's stamping certificate (the intake knows it too, without a lookup).
const mock = startSatMock({ now: () => clock(), certificates: new Map([[sandbox.noCertificado, sandbox.certificateDer]]) });
afterAll(() => mock.stop());
const app = await createTestApp({
  wakeOnEnqueue: false,
  satCertificatesUrl: mock.certificatesUrl,
  satDownloads: { url: mock.url, downloadUrl: mock.downloadUrl, pollSeconds: POLL, stalledSeconds: 86_400 },
});
clock = () => app.clock.now;
mock.control.tokenSeconds = 3600;

const owner = await issuer(app, { keys: ['test', 'live'] });
const putFiel = async () =>
  (await app.app.request('/api/v1/fiel', { method: 'PUT', headers: { authorization: `Bearer ${owner.token}` }, body: csdForm(FIEL) })).status;
// One FIEL per tenant, for both environments.
expect(await putFiel()).toBe(201);
// Another tenant issues to EKU9003173C9 in test mode: its sandbox stamps them.
const funk = await issuer(app, { keys: ['test'], csd: ['test'], tenant: TENANTS.FUNK });
const toEku = { rfc: RFC, nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'G03' };
const stamped: { uuid: string; xml: string }[] = [];
for (let i = 0; i < 4; i++) {
  const res = await app.call('POST', '/cfdis', { token: funk.key, body: ingreso({ receptor: toEku }) });
  expect(res.status).toBe(201);
  const xml = await (await app.app.request(`/api/v1/cfdis/${res.json.id}/xml`, { headers: { authorization: `Bearer ${funk.key}` } })).text();
  stamped.push({ uuid: res.json.uuid.toUpperCase(), xml });
}
mock.control.documents.push(...stamped.map(({ xml }) => ({ xml })));
const UUIDS = stamped.map((s) => s.uuid).sort();

const day = (d: number) => localDateTime(new Date(app.clock.now.getTime() + d * 86_400_000), 'America/Mexico_City').slice(0, 10);
const TERMINAL = ['downloaded', 'rejected', 'empty', 'expired', 'stalled', 'failed'];
const get = (id: string, token = owner.live) => app.call('GET', `/sat-downloads/${id}`, { token });

async function settle(id: string, token = owner.live) {
  for (let i = 0; i < 20; i++) {
    await app.app.worker.drain();
    const r = (await get(id, token)).json;
    if (TERMINAL.includes(r.status)) return r;
    app.clock.advance(POLL * 1000);
  }
  return (await get(id, token)).json;
}
const received = async (token: string) => (await app.call('GET', '/received-cfdis?limit=100', { token })).json.data as any[];
const rowCount = async (environment: 'live' | 'test') =>
  (
    await app.db
      .select({ id: receivedCfdis.id })
      .from(receivedCfdis)
      .where(and(eq(receivedCfdis.tenantId, owner.tenant.id), eq(receivedCfdis.environment, environment)))
  ).length;

/** A request whose package was processed, as a crash right after the intake leaves it: packages not marked, status finished, its job again. */
async function asIfCrashedAfterIntake(id: string) {
  await app.db.update(satDownloadPackages).set({ processedAt: null }).where(eq(satDownloadPackages.satDownloadId, id));
  await app.db.update(satDownloads).set({ status: 'finished' }).where(eq(satDownloads.id, id));
  await enqueue(app.db, app.clock.now, {
    type: SAT_DOWNLOAD_JOB,
    payload: { satDownloadId: id },
    tenantId: owner.tenant.id,
    environment: 'live',
    maxAttempts: 20,
  });
}

let xmlRequest = '';

describe('live: the SAT mock → the intake', () => {
  test('received XML, 1 → 2 → 3 with two packages: every XML in GET /received-cfdis with source sat_download and its sat_download_id', async () => {
    mock.control.scenario = SCENARIOS.finished(2);
    const res = await app.call('POST', '/sat-downloads', { token: owner.live, body: { direction: 'received', kind: 'xml', desde: day(-1), hasta: day(1) } });
    expect(res.status).toBe(202);
    xmlRequest = res.json.data[0].id;
    expect(res.json.data[0].origin).toBe('request');
    await app.app.worker.drain();
    expect((await get(xmlRequest)).json.status).toBe('accepted');
    app.clock.advance(POLL * 1000);
    await app.app.worker.drain();
    expect((await get(xmlRequest)).json.status).toBe('in_progress');
    const done = await settle(xmlRequest);
    expect(done).toMatchObject({ status: 'downloaded', numero_cfdis: 4, error: null });
    expect(done.packages).toHaveLength(2);
    const list = (await received(owner.live)).filter((r) => r.source === 'sat_download');
    expect(list.map((r) => r.uuid).sort()).toEqual(UUIDS);
    for (const r of list) {
      expect(r).toMatchObject({ sat_download_id: xmlRequest, emisor_rfc: 'FUNK671228PH6', receptor_rfc: RFC, version: '4.0' });
      // Live refuses a test CSD's seal (TEST_CSD_IN_LIVE); every other check passed, the SelloSAT against the sandbox's certificate included.
      const checks = (await app.call('GET', `/received-cfdis/${r.id}`, { token: owner.live })).json.checks as { name: string; ok: boolean }[];
      expect(checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['certificate_issuer']);
    }
    // The bytes are the stamped document's, unchanged.
    const xml = await (await app.app.request(`/api/v1/received-cfdis/${list[0].id}/xml`, { headers: { authorization: `Bearer ${owner.live}` } })).text();
    expect(xml).toBe(stamped.find((s) => s.uuid === list[0].uuid)!.xml);
  });

  test('a second run of the same packages (a crash after the intake) stores no duplicate', async () => {
    const before = await rowCount('live');
    expect(before).toBe(4);
    await asIfCrashedAfterIntake(xmlRequest);
    expect((await settle(xmlRequest)).status).toBe('downloaded');
    expect(await rowCount('live')).toBe(before);
    const packages = await app.db.select().from(satDownloadPackages).where(eq(satDownloadPackages.satDownloadId, xmlRequest));
    expect(packages.map((p) => [p.downloads, p.processedAt !== null])).toEqual([
      [1, true],
      [1, true],
    ]);
  });

  test('received metadata: one row per UUID stored', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    const res = await app.call('POST', '/sat-downloads', {
      token: owner.live,
      body: { direction: 'received', kind: 'metadata', desde: day(-1), hasta: day(1) },
    });
    const done = await settle(res.json.data[0].id);
    expect(done.status).toBe('downloaded');
    const rows = await app.db
      .select()
      .from(satMetadata)
      .where(and(eq(satMetadata.tenantId, owner.tenant.id), eq(satMetadata.environment, 'live')));
    expect(rows.map((r) => r.uuid).sort()).toEqual(UUIDS);
    expect(rows.every((r) => r.satDownloadId === done.id && r.rfcEmisor === 'FUNK671228PH6' && r.rfcReceptor === RFC && r.estatus === '1')).toBe(true);
  });

  test('the FIEL deleted while stored packages wait: they are processed without SAT, the request ends downloaded', async () => {
    await asIfCrashedAfterIntake(xmlRequest);
    const calls = mock.control.calls.length;
    const del = await app.app.request('/api/v1/fiel', { method: 'DELETE', headers: { authorization: `Bearer ${owner.token}` } });
    expect(del.status).toBeLessThan(300);
    expect(await settle(xmlRequest)).toMatchObject({ status: 'downloaded', error: null });
    expect(mock.control.calls.length).toBe(calls);
    expect(await rowCount('live')).toBe(4);
    // A request that still needs SAT fails saying why.
    mock.control.scenario = SCENARIOS.finished(1, 0);
    expect(await putFiel()).toBe(201);
    const res = await app.call('POST', '/sat-downloads', { token: owner.live, body: { direction: 'issued', kind: 'metadata', desde: day(-1), hasta: day(1) } });
    expect(res.status).toBe(202);
    await app.app.request('/api/v1/fiel', { method: 'DELETE', headers: { authorization: `Bearer ${owner.token}` } });
    const failed = await settle(res.json.data[0].id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('PUT /fiel');
    expect(await putFiel()).toBe(201);
  });
});

describe('test mode: the simulator → the intake', () => {
  test("the tenant whose RFC received another tenant's test CFDI downloads them into its received CFDIs, validated", async () => {
    const res = await app.call('POST', '/sat-downloads', { token: owner.key, body: { direction: 'received', kind: 'xml', desde: day(-1), hasta: day(1) } });
    expect(res.status).toBe(202);
    const done = await settle(res.json.data[0].id, owner.key);
    expect(done).toMatchObject({ status: 'downloaded', numero_cfdis: 4 });
    expect(done.id_solicitud).toStartWith('sandbox-');
    const list = await received(owner.key);
    expect(list.map((r) => r.uuid).sort()).toEqual(UUIDS);
    for (const r of list) expect(r).toMatchObject({ source: 'sat_download', sat_download_id: done.id, validation: 'validated', emisor_rfc: 'FUNK671228PH6' });
    expect(await rowCount('test')).toBe(4);
  });
});

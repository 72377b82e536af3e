import { describe, expect, test } from 'bun:test';
import { wallClock } from '../../../src/cfdi/time.ts';
import type { Logger } from '../../../src/lib/logger.ts';
import { SYNC_SETTLE_DAYS } from '../../../src/invoices/sat-downloads/sync.ts';
import { createTestApp, csdFiles, csdForm, ingreso, issuer, TENANTS } from '../../helpers.ts';

/**
 * The scheduled Descarga Masiva sync (issue 39, build item 5): opt-in per environment through PUT /sat-downloads/sync;
 * each settled day's metadata in both directions, then the XML of that day only when a vigente UUID it lists is not
 * stored. Test mode: the simulator answers from the sandbox's CFDI, so the clock moves freely.
 */

const RFC = 'EKU9003173C9';
const FIEL = csdFiles('EKU9003173C9_FIEL', RFC);
const DAY = 86_400_000;
const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, ...(fields ? { fields } : {}) });
const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
const app = await createTestApp({ wakeOnEnqueue: false, logger });

const owner = await issuer(app, { keys: ['test'] });
const fiel = async (token: string) =>
  (await app.app.request('/api/v1/fiel', { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: csdForm(FIEL) })).status;
expect(await fiel(owner.token)).toBe(201);
// Same RFC and FIEL, never opted in.
const quiet = await issuer(app, { keys: ['test'] });
expect(await fiel(quiet.token)).toBe(201);
// Opted in without a FIEL: skipped.
const funk = await issuer(app, { keys: ['test'], csd: ['test'], tenant: TENANTS.FUNK });
const toEku = { rfc: RFC, nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'G03' };

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - DAY).toISOString().slice(0, 10);
const today = () => wallClock(app.clock.now, 'America/Mexico_City').slice(0, 10);
const sync = () => app.app.syncSatDownloads();
const setting = (token = owner.key) => app.call('GET', '/sat-downloads/sync', { token });
const put = (enabled: boolean, token = owner.key) => app.call('PUT', '/sat-downloads/sync', { token, body: { enabled } });
const requests = async (token = owner.key) => (await app.call('GET', '/sat-downloads?limit=100', { token })).json.data as any[];
const fromSync = async (token = owner.key) => (await requests(token)).filter((r) => r.origin === 'sync');
const issueToEku = async () => {
  const res = await app.call('POST', '/cfdis', { token: funk.key, body: ingreso({ receptor: toEku }) });
  expect(res.status).toBe(201);
  return res.json;
};

describe('PUT/GET /sat-downloads/sync', () => {
  test('off until set; ADMIN sets it, VIEWER reads it; per environment; a body that is no boolean is a 400 naming it', async () => {
    expect((await setting()).json).toEqual({ enabled: false, synced_through: null, last_run_at: null, last_result: null, updated_at: null });
    const viewer = await owner.userWithRole('VIEWER');
    expect((await put(true, viewer.token)).status).toBe(403);
    expect((await setting(viewer.token)).status).toBe(200);
    const bad = await app.call('PUT', '/sat-downloads/sync', { token: owner.key, body: { enabled: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('enabled');
    const on = await put(true);
    expect(on.status).toBe(200);
    expect(on.json).toMatchObject({ enabled: true, synced_through: null });
    expect((await setting(viewer.token)).json.enabled).toBe(true);
    // Another tenant sees its own (off).
    expect((await setting(quiet.key)).json.enabled).toBe(false);
    expect((await put(true, funk.key)).status).toBe(200);
  });
});

describe('the sync run', () => {
  test('a settled day: metadata both ways; the XML only when a vigente UUID is missing; opted out and no FIEL: nothing', async () => {
    const dayA = today();
    const a = await issueToEku();
    app.clock.advance(DAY);
    const dayB = today();
    const b = await issueToEku();
    // B reaches the tenant another way (an upload) before the sync sees it listed.
    const xmlB = await (await app.app.request(`/api/v1/cfdis/${b.id}/xml`, { headers: { authorization: `Bearer ${funk.key}` } })).text();
    const uploaded = await app.app.request('/api/v1/received-cfdis', {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/xml' },
      body: xmlB,
    });
    expect(uploaded.status).toBe(200);

    // Day A settles SYNC_SETTLE_DAYS days after its end (B's day is one of them): not asked a moment before.
    // Mexico City is UTC-6 all year (no DST since 2022): day A + 1 + SYNC_SETTLE_DAYS begins at 06:00 UTC.
    const settles = Date.parse(`${dayA}T06:00:00Z`) + (1 + SYNC_SETTLE_DAYS) * DAY;
    app.clock.now = new Date(settles - 60_000);
    expect(await sync()).toMatchObject({ requested: 2, skipped: 1 });
    expect((await fromSync()).map((r) => r.desde.slice(0, 10))).toEqual([dayBefore(dayA), dayBefore(dayA)]);
    app.clock.advance(60_000);
    await sync();
    const first = (await fromSync()).filter((r) => r.desde.startsWith(dayA));
    expect(first.map((r) => [r.direction, r.kind, r.desde, r.hasta]).sort()).toEqual([
      ['issued', 'metadata', `${dayA}T00:00:00`, `${dayA}T23:59:59`],
      ['received', 'metadata', `${dayA}T00:00:00`, `${dayA}T23:59:59`],
    ]);
    expect((await setting()).json).toMatchObject({ enabled: true, synced_through: dayA, last_result: 'requested 2' });
    // Run again before the job moved them: nothing more.
    await sync();
    expect(await fromSync()).toHaveLength(4);

    await app.app.worker.drain();
    await sync();
    const xml = (await fromSync()).filter((r) => r.kind === 'xml');
    expect(xml.map((r) => [r.direction, r.desde, r.hasta])).toEqual([['received', `${dayA}T00:00:00`, `${dayA}T23:59:59`]]);
    await app.app.worker.drain();
    const received = (await app.call('GET', '/received-cfdis?limit=100', { token: owner.key })).json.data as any[];
    expect(received.map((r) => [r.uuid, r.source, r.sat_download_id]).sort()).toEqual(
      [
        [a.uuid.toUpperCase(), 'sat_download', xml[0].id],
        [b.uuid.toUpperCase(), 'upload', null],
      ].sort(),
    );

    // Day B: listed, but B is stored already: no XML request.
    app.clock.advance(DAY);
    await sync();
    await app.app.worker.drain();
    await sync();
    const all = await fromSync();
    expect(
      all
        .filter((r) => r.desde.startsWith(dayB))
        .map((r) => `${r.direction} ${r.kind} ${r.status}`)
        .sort(),
    ).toEqual(['issued metadata empty', 'received metadata downloaded']);
    expect(all.filter((r) => r.kind === 'xml')).toHaveLength(1);
    expect((await setting()).json.synced_through).toBe(dayB);

    // Never opted in: nothing. Opted in without a FIEL: skipped, with a log line and the reason.
    expect(await fromSync(quiet.key)).toEqual([]);
    expect(await fromSync(funk.key)).toEqual([]);
    expect((await setting(funk.key)).json.last_result).toContain('PUT /fiel');
    expect(lines.some((l) => l.level === 'warn' && l.msg.includes('skipped') && l.fields?.tenant_id === funk.tenant.id)).toBe(true);

    // Turned off: the next day is not asked.
    expect((await put(false)).json.enabled).toBe(false);
    app.clock.advance(DAY);
    await sync();
    expect(await fromSync()).toHaveLength(all.length);
  });

  test('a day requested by hand already: covered, not asked again (the 5005/5002 guard), and said so', async () => {
    // Turned on again, it goes on from the day after the last one it reached.
    const through = (await setting()).json.synced_through as string;
    expect((await put(true)).json).toMatchObject({ enabled: true, synced_through: through });
    const next = new Date(Date.parse(`${through}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    const manual = await app.call('POST', '/sat-downloads', { token: owner.key, body: { direction: 'received', kind: 'metadata', desde: next, hasta: next } });
    expect(manual.status).toBe(202);
    const before = (await fromSync()).length;
    await sync();
    const made = (await fromSync()).slice(before);
    expect(made.some((r) => r.direction === 'received' && r.kind === 'metadata' && r.desde.startsWith(next))).toBe(false);
    expect(made.some((r) => r.direction === 'issued' && r.kind === 'metadata' && r.desde.startsWith(next))).toBe(true);
    expect((await setting()).json.last_result).toContain(`already requested: received metadata ${next}`);
    expect((await requests()).filter((r) => r.direction === 'received' && r.kind === 'metadata' && r.desde.startsWith(next))).toHaveLength(1);
  });
});

import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/lib/logger.ts';
import { STORAGE_LOG_INTERVAL_MS } from '../../src/lib/storage-log.ts';
import { createTestApp, fillDatabase, ingreso, issuer, READY } from '../helpers.ts';

const invoice = ingreso;

// What escaped every handler while a test ran (in the server, the process-level handler's log line).
const unhandled: unknown[] = [];
const record = (err: unknown) => void unhandled.push(err);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', record);
});
afterEach(() => void process.off('unhandledRejection', record));

// The disk fills for real on SQLite (its page limit); PostgreSQL refuses every write with disk_full (fillDatabase).
describe('a full disk', () => {
  test('POST /cfdis answers 503 with Retry-After and the envelope, naming no internals; it works again once there is room', async () => {
    const t = await createTestApp();
    const key = (await issuer(t, READY)).key;
    const free = await fillDatabase(t.db);
    const res = await t.call('POST', '/cfdis', { token: key, body: invoice() });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.json.error).toEqual({
      code: 'HTTP_503',
      message: 'Storage is full; retry later',
      details: [{ field: 'storage', issue: 'the service has no space left to record this request' }],
    });
    expect(res.text).not.toMatch(/SQLITE|sqlite|disk_filler/);

    await free();
    expect((await t.call('POST', '/cfdis', { token: key, body: invoice() })).status).toBe(201);
  });

  test('the job worker logs a drain it cannot record, leaks no rejection, and stamps the job once there is room', async () => {
    const t = await createTestApp({ wakeOnEnqueue: false }); // the test wakes it, once the disk is full
    const key = (await issuer(t, READY)).key;
    const queued = await t.call('POST', '/cfdis', { token: key, body: invoice(), headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    expect(queued.status).toBe(202);
    const free = await fillDatabase(t.db);

    // The path an enqueue takes (wake: a drain nobody awaits) and the scheduler's (drain awaited).
    t.app.worker.wake();
    await Bun.sleep(50);
    expect(await t.app.worker.drain()).toBe(0);
    await Bun.sleep(10); // a rejection is reported after the microtasks that could have handled it
    expect(unhandled).toEqual([]);
    expect((await t.call('GET', `/cfdis/${queued.json.id}`, { token: key })).json.status).toBe('en_cola');

    await free();
    t.clock.advance(5_000);
    await t.app.worker.drain();
    expect((await t.call('GET', `/cfdis/${queued.json.id}`, { token: key })).json.status).toBe('vigente');
    expect(unhandled).toEqual([]);
  });

  test('is logged once per interval, without a stack, with the count of the failures left out (issue 35)', async () => {
    const lines: Record<string, unknown>[] = [];
    const t = await createTestApp({ wakeOnEnqueue: false, logger: createLogger('info', (line) => void lines.push(JSON.parse(line))) });
    const key = (await issuer(t, READY)).key;
    await t.call('POST', '/cfdis', { token: key, body: invoice(), headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    const free = await fillDatabase(t.db);
    lines.length = 0;

    // Every request and every drain fails the same way while the disk is full.
    for (let i = 0; i < 20; i++) expect((await t.call('POST', '/cfdis', { token: key, body: invoice() })).status).toBe(503);
    for (let i = 0; i < 5; i++) await t.app.worker.drain();
    const errors = () => lines.filter((l) => l.level === 'error');
    expect(errors()).toEqual([expect.objectContaining({ msg: 'storage full: writes fail until there is room', kind: 'full', suppressed: 0 })]);
    expect(JSON.stringify(errors())).not.toContain('    at ');

    t.clock.advance(STORAGE_LOG_INTERVAL_MS);
    expect((await t.call('POST', '/cfdis', { token: key, body: invoice() })).status).toBe(503);
    expect(errors()).toHaveLength(2);
    expect(errors()[1]!.kind).toBe('full');
    expect(errors()[1]!.suppressed as number).toBeGreaterThanOrEqual(19); // the 19 requests and the drains since the first line
    await free();
  });
});

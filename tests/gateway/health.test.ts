import { describe, expect, test } from 'bun:test';
import { closeDatabase, createTestApp, fillDatabase, TEST_ENGINE } from '../helpers.ts';
import { sql } from 'drizzle-orm';

describe('GET /health', () => {
  test('200 ok with database and scheduler up', async () => {
    const t = await createTestApp();
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('ok');
    expect(res.json.info.database.status).toBe('up');
    expect(res.json.info.scheduler.status).toBe('up');
    expect(res.json.details.service.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('503 naming the scheduler when its heartbeat is stale', async () => {
    const t = await createTestApp({ heartbeat: { lastTickAt: () => Date.now() - 60_000, intervalMs: 5000 }, now: () => new Date() });
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.json.status).toBe('error');
    expect(res.json.error.scheduler.status).toBe('down');
    expect(res.json.info.database.status).toBe('up');
  });

  test('503 naming the database when it is gone', async () => {
    const t = await createTestApp();
    closeDatabase(t.db);
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.json.error.database.status).toBe('down');
    expect(res.json.error.database.message).toBeTruthy();
  });

  // SQLite's: it reports the room SQLite has left (PostgreSQL's server watches its own disk).
  test.skipIf(TEST_ENGINE !== 'sqlite')(
    'the database check writes (at most once a second) and is down when the storage is full; liveness stays 200',
    async () => {
      const t = await createTestApp();
      const probe = async () => (await t.query<{ value: Buffer }>(sql`select value from settings where key = 'health_probe'`))[0]?.value.toString();
      const ok = await t.call('GET', '/health');
      expect(ok.status).toBe(200);
      expect(ok.json.info.database.free_bytes).toBeGreaterThan(64 * 1024 * 1024);
      expect(await probe()).toBe(t.clock.now.toISOString());

      const free = await fillDatabase(t.db);
      // Within the second, the last answer is repeated (no write).
      expect((await t.call('GET', '/health')).status).toBe(200);
      t.clock.advance(1000);
      const full = await t.call('GET', '/health');
      expect(full.status).toBe(503);
      expect(full.json.error.database).toMatchObject({
        status: 'down',
        message: expect.stringMatching(/^storage is full: 0 MiB left, at least 64 MiB needed$/),
      });
      expect(full.json.info.scheduler.status).toBe('up');
      const live = await t.call('GET', '/health/live');
      expect(live.status).toBe(200);
      expect(live.json).toMatchObject({ status: 'ok', error: null, info: { service: { status: 'up' } } });

      await free();
      t.clock.advance(1000);
      expect((await t.call('GET', '/health')).status).toBe(200);
      expect(await probe()).toBe(t.clock.now.toISOString());
    },
  );
});

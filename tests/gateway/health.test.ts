import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../helpers.ts';

describe('GET /health', () => {
  test('200 ok with database and scheduler up', async () => {
    const t = createTestApp();
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('ok');
    expect(res.json.info.database.status).toBe('up');
    expect(res.json.info.scheduler.status).toBe('up');
    expect(res.json.details.service.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('503 naming the scheduler when its heartbeat is stale', async () => {
    const t = createTestApp({ heartbeat: { lastTickAt: () => Date.now() - 60_000, intervalMs: 5000 }, now: () => new Date() });
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.json.status).toBe('error');
    expect(res.json.error.scheduler.status).toBe('down');
    expect(res.json.info.database.status).toBe('up');
  });

  test('503 naming the database when it is gone', async () => {
    const t = createTestApp();
    t.db.$client.close();
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.json.error.database.status).toBe('down');
    expect(res.json.error.database.message).toBeTruthy();
  });
});

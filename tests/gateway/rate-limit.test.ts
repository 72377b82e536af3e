import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { closeDatabase } from '../../src/db/index.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { counterTableRateLimits, FixedWindowLimiter } from '../../src/gateway/rate-limit.ts';
import type { Plan } from '../../src/lib/plans.ts';
import { createTestApp, issuer, query, until } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';

describe('rate limits', () => {
  test('the 101st request in a minute on a starter key gets 429 with the exact envelope; a second key has its own window', async () => {
    const t = await createTestApp();
    // Start at the beginning of a minute so the window cannot roll over mid-test.
    t.clock.now = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);
    const reg = await issuer(t);
    const k1 = await reg.createKey('test', 'one');
    const k2 = await reg.createKey('test', 'two');
    for (let i = 1; i <= 100; i++) {
      const res = await t.call('GET', '/tenants/me', { token: k1.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(100 - i));
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((t.clock.now.getTime() - (t.clock.now.getTime() % 60000) + 60000) / 1000)));
    }
    const limited = await t.call('GET', '/tenants/me', { token: k1.key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('59');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Object.keys(limited.json).sort()).toEqual(['error', 'path', 'request_id', 'timestamp']);
    expect(limited.json.error.code).toBe('HTTP_429');
    expect(typeof limited.json.error.message).toBe('string');
    expect(limited.json.error.details).toEqual([{ field: 'rate_limit', issue: 'limit of 100 requests per minute reached; retry in 59 seconds' }]);
    expect(limited.json.path).toBe('/api/v1/tenants/me');
    expect(limited.json.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const other = await t.call('GET', '/tenants/me', { token: k2.key });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('99');

    // The next minute opens a new window.
    t.clock.advance(60_000);
    expect((await t.call('GET', '/tenants/me', { token: k1.key })).status).toBe(200);
  });

  test('rate-limit headers are on every response: success, errors, anonymous routes', async () => {
    const t = await createTestApp({ anonymousRateLimit: 100 });
    const reg = await issuer(t);
    const responses = [
      await t.call('GET', '/tenants/me', { token: reg.token }),
      await t.call('GET', '/users/usr_missing', { token: reg.token }),
      await t.call('PATCH', '/tenants/me', { token: reg.token, body: { nombre: 5 } }),
      await t.call('GET', '/tenants/me'),
      await t.call('GET', '/health'),
      await t.call('POST', '/auth/login', { body: {} }),
      await t.call('GET', '/openapi.json'),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 404, 422, 401, 200, 422, 200]);
    for (const r of responses) {
      expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(r.headers.get('x-ratelimit-reset')).toMatch(/^\d{10}$/);
    }
  });

  test('the plan sets the limit: pro 300, sandbox 60, enterprise its own value', async () => {
    const t = await createTestApp();
    const reg = await issuer(t);
    const key = await reg.createKey();
    const limitFor = async (plan: Plan, custom: number | null) => {
      await reg.setPlan(plan, custom);
      return (await t.call('GET', '/tenants/me', { token: key.key })).headers.get('x-ratelimit-limit');
    };
    expect(await limitFor('pro', null)).toBe('300');
    expect(await limitFor('sandbox', null)).toBe('60');
    expect(await limitFor('enterprise', null)).toBe('1000');
    expect(await limitFor('enterprise', 5000)).toBe('5000');
    expect(await limitFor('enterprise', 10)).toBe('1000');
  });

  test('health probes have their own budget per address: sign-ups from the same address never make the instance look down', async () => {
    const t = await createTestApp({ anonymousRateLimit: 3, probeRateLimit: 20 });
    t.clock.now = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);
    for (let i = 0; i < 3; i++) expect((await t.call('GET', '/openapi.json')).status).toBe(200);
    expect((await t.call('GET', '/openapi.json')).status).toBe(429); // the address's anonymous budget is spent
    for (let i = 0; i < 10; i++) {
      expect((await t.call('GET', '/health')).status).toBe(200);
      expect((await t.call('GET', '/health/live')).status).toBe(200);
    }
    const past = await t.call('GET', '/health');
    expect(past.status).toBe(429);
    expect(past.headers.get('x-ratelimit-limit')).toBe('20');
  });

  test('failed credentials are limited per client address', async () => {
    const t = await createTestApp({ anonymousRateLimit: 3 });
    t.clock.now = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);
    for (let i = 0; i < 3; i++) expect((await t.call('GET', '/tenants/me', { token: 'sk_test_guess' + i })).status).toBe(401);
    expect((await t.call('GET', '/tenants/me', { token: 'sk_test_guess' })).status).toBe(429);
  });

  test("a tenant's keys and sessions together get twice the plan's limit, however many keys it makes", async () => {
    const t = await createTestApp();
    const reg = await issuer(t, { plan: 'sandbox' });
    const keys = [await reg.createKey('test', 'a'), await reg.createKey('test', 'b'), await reg.createKey('test', 'c')];
    // A new minute, 11 s in.
    t.clock.now = new Date(Math.ceil(t.clock.now.getTime() / 60_000) * 60_000 + 11_000);
    for (let i = 0; i < 60; i++) expect((await t.call('GET', '/tenants/me', { token: keys[0]!.key })).status).toBe(200);
    for (let i = 0; i < 60; i++) {
      const res = await t.call('GET', '/tenants/me', { token: keys[1]!.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60'); // the credential's own window
    }
    const third = await t.call('GET', '/tenants/me', { token: keys[2]!.key });
    expect(third.status).toBe(429);
    expect(third.headers.get('x-ratelimit-limit')).toBe('120');
    expect(third.headers.get('retry-after')).toBe('49');
    expect(third.json.error.details).toEqual([
      { field: 'rate_limit', issue: "the tenant's limit of 120 requests per minute, all its API keys and sessions together, reached; retry in 49 seconds" },
    ]);
    expect((await t.call('GET', '/tenants/me', { token: reg.token })).status).toBe(429);
    // Another tenant is untouched; the next minute opens a new window.
    const other = await issuer(t);
    expect((await t.call('GET', '/tenants/me', { token: other.token })).status).toBe(200);
    t.clock.advance(60_000);
    expect((await t.call('GET', '/tenants/me', { token: keys[2]!.key })).status).toBe(200);
  });
});

describe('FixedWindowLimiter', () => {
  test('counts per key within a clock-aligned minute', () => {
    const l = new FixedWindowLimiter();
    const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000) + 15_000;
    for (let i = 1; i <= 3; i++) expect(l.hit('a', 3, t0).remaining).toBe(3 - i);
    const over = l.hit('a', 3, t0 + 1000);
    expect(over.allowed).toBe(false);
    expect(over.retryAfter).toBe(44);
    expect(over.reset).toBe((t0 - 15_000 + 60_000) / 1000);
    expect(l.hit('b', 3, t0).allowed).toBe(true);
    expect(l.hit('a', 3, t0 + 45_000).allowed).toBe(true);
  });
});

describe.skipIf(!POSTGRES)('rate counters on PostgreSQL', () => {
  test('a budget of a window that passed starts again at one; the windows that ended are deleted when a new one starts', async () => {
    const scratch = await scratchDatabase();
    const db = await openPostgres(scratch.url, { max: 2 });
    try {
      let nowMs = 1_800_000_000_000 - (1_800_000_000_000 % 60_000) + 5_000;
      const limiter = counterTableRateLimits(db, () => new Date(nowMs))('gateway', 60_000);
      const keys = async () =>
        (await query<{ key: string; hits: number }>(db, sql`select key, hits from rate_counters order by key`)).map((r) => `${r.key}=${Number(r.hits)}`);
      await limiter.hit([{ key: 'a', limit: 5 }]);
      await limiter.hit([{ key: 'a', limit: 5 }]);
      await limiter.hit([{ key: 'b', limit: 5 }]);
      expect(await keys()).toEqual(['gateway:a=2', 'gateway:b=1']);
      nowMs += 60_000;
      const [next] = await limiter.hit([{ key: 'a', limit: 5 }]);
      expect(next).toEqual({ allowed: true, limit: 5, remaining: 4, reset: (nowMs - 5_000 + 60_000) / 1000, retryAfter: 55 });
      // The purge runs beside the request: wait for it.
      await until(async () => (await keys()).length <= 1, 'the old window is purged');
      expect(await keys()).toEqual(['gateway:a=1']);
    } finally {
      await closeDatabase(db);
      await scratch.drop();
    }
  });

  test('issue 35: requests of one caller at once are counted together, the tenant only for those its credential allowed, each request in its own place', async () => {
    const scratch = await scratchDatabase();
    const db = await openPostgres(scratch.url, { max: 2 });
    try {
      const nowMs = 1_800_000_000_000 - (1_800_000_000_000 % 60_000) + 5_000;
      const limiter = counterTableRateLimits(db, () => new Date(nowMs))('gateway', 60_000);
      const budgets = [
        { key: 'key', limit: 3 },
        { key: 'tenant', limit: 100 },
      ];
      const decisions = await Promise.all(Array.from({ length: 6 }, () => limiter.hit(budgets)));
      const shown = decisions.map((d) => d.map((x) => `${x.allowed ? 'ok' : 'no'}:${x.remaining}`).join(' '));
      expect(shown.sort()).toEqual(['no:0', 'no:0', 'no:0', 'ok:0 ok:97', 'ok:1 ok:98', 'ok:2 ok:99']);
      const rows = await query<{ key: string; hits: number }>(db, sql`select key, hits from rate_counters order by key`);
      expect(rows.map((r) => `${r.key}=${Number(r.hits)}`)).toEqual(['gateway:key=6', 'gateway:tenant=3']);
    } finally {
      await closeDatabase(db);
      await scratch.drop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { setTenantPlan } from '../../src/auth/tenants/service.ts';
import { closeDatabase, type Db } from '../../src/db/index.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { tellOthersThrough } from '../../src/lib/identity-changes.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { coordinationFor } from '../../src/topology/one-database.ts';
import { createTestApp, issuer, type TestApp } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';

/**
 * Issue 21: two instances on one PostgreSQL, each with its own pool, as two processes would have. Their rate
 * windows follow the database's clock (no test clock), and an identity write through one reaches the other's caches.
 */
describe.skipIf(!POSTGRES)('two instances on one PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  const pools: Db[] = [];
  let a: TestApp;
  let b: TestApp;

  const instance = async (overrides: Parameters<typeof createTestApp>[0] = {}) => {
    const db = await openPostgres(scratch.url, { max: 4 });
    pools.push(db);
    return createTestApp({ db, now: undefined, listen: true, ...overrides });
  };

  // A new database migrated by the first instance, then its twin: slow on a busy server, not a test of time.
  beforeAll(async () => {
    scratch = await scratchDatabase();
    a = await instance();
    b = await instance();
  }, 60_000);
  afterAll(async () => {
    for (const db of pools) await closeDatabase(db);
    await scratch?.drop();
  }, 60_000);

  const databaseNowMs = async () =>
    Number((await a.query<{ ms: unknown }>(sql`select floor(extract(epoch from clock_timestamp()) * 1000)::bigint as ms`))[0]!.ms);

  /** Waits for the next minute of the database's clock when this one ends within 15 s, so no window turns mid-test. */
  const freshWindow = async (): Promise<number> => {
    const nowMs = await databaseNowMs();
    const left = 60_000 - (nowMs % 60_000);
    if (left > 15_000) return nowMs;
    await Bun.sleep(left + 100);
    return databaseNowMs();
  };

  test('a key spends one budget on both: of 61 requests alternating between them, 60 pass with remaining 59 … 0, the 61st is 429', async () => {
    const reg = await issuer(a, { plan: 'sandbox', keys: ['test'] });
    const startMs = await freshWindow();
    const reset = String(Math.ceil((startMs - (startMs % 60_000) + 60_000) / 1000));
    for (let i = 1; i <= 60; i++) {
      const res = await (i % 2 ? a : b).call('GET', '/tenants/me', { token: reg.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
      expect(res.headers.get('x-ratelimit-reset')).toBe(reset);
    }
    const limited = await b.call('GET', '/tenants/me', { token: reg.key });
    const endMs = await databaseNowMs();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('60');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-reset')).toBe(reset);
    // Seconds to the window's end on the database's clock, between the request's start and its answer.
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((Number(reset) * 1000 - endMs) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((Number(reset) * 1000 - startMs) / 1000));
    expect(limited.json.error.details).toEqual([{ field: 'rate_limit', issue: `limit of 60 requests per minute reached; retry in ${retryAfter} seconds` }]);
    expect((await a.call('GET', '/tenants/me', { token: reg.key })).status).toBe(429);
  }, 30_000);

  test('70 requests at once, half on each: exactly 60 pass, each remaining value once, the other 10 are 429', async () => {
    const reg = await issuer(b, { plan: 'sandbox', keys: ['test'] });
    await freshWindow();
    const answers = await Promise.all(Array.from({ length: 70 }, (_, i) => (i % 2 ? a : b).call('GET', '/tenants/me', { token: reg.key })));
    const passed = answers.filter((r) => r.status === 200);
    expect(passed.length).toBe(60);
    expect(passed.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual([...Array(60).keys()]);
    const refused = answers.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')])).toEqual(Array(10).fill([429, '0']));
  }, 30_000);

  /** Holds every write to rate_counters from another connection until the returned function is called. */
  const holdCounters = async () => {
    const other = postgres(scratch.url, { max: 1, onnotice: () => {} });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const done = other.begin(async (tx) => {
      await tx`lock table rate_counters in exclusive mode`;
      locked();
      await released;
    });
    await isLocked;
    return async () => {
      release();
      await done;
      await other.end();
    };
  };

  test('issue 35: 200 requests of one key at once, half on each: exactly 60 pass, none is 503, and the counter rows are written a few times, not 400', async () => {
    await a.query(sql`create table counter_writes (at timestamptz not null default clock_timestamp())`);
    await a.query(
      sql.raw(
        `create function count_counter_write() returns trigger language plpgsql as $$ begin insert into counter_writes default values; return null; end $$`,
      ),
    );
    await a.query(sql`create trigger counter_writes after insert or update on rate_counters for each row execute function count_counter_write()`);
    try {
      const reg = await issuer(a, { plan: 'sandbox', keys: ['test'] });
      await freshWindow();
      const before = Number((await a.query<{ n: unknown }>(sql`select count(*) as n from counter_writes`))[0]!.n);
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).call('GET', '/tenants/me', { token: reg.key })));
      const passed = answers.filter((r) => r.status === 200);
      expect(answers.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.status)).toEqual([]);
      expect(passed.length).toBe(60);
      expect(passed.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual([...Array(60).keys()]);
      // Per instance, the requests that arrive while its statement is in flight are counted together by the next.
      const writes = Number((await a.query<{ n: unknown }>(sql`select count(*) as n from counter_writes`))[0]!.n) - before;
      expect(writes).toBeLessThan(40);
    } finally {
      await a.query(sql`drop trigger counter_writes on rate_counters`);
      await a.query(sql`drop function count_counter_write`);
      await a.query(sql`drop table counter_writes`);
    }
  }, 30_000);

  test('issue 35: a counter that does not answer within 1 s (its row locked) fails no request; the hits reach it once it answers', async () => {
    const reg = await issuer(a, { plan: 'sandbox', keys: ['test'] });
    await freshWindow();
    expect((await a.call('GET', '/tenants/me', { token: reg.key })).headers.get('x-ratelimit-remaining')).toBe('59');
    const release = await holdCounters();
    let answers: Awaited<ReturnType<TestApp['call']>>[];
    try {
      answers = await Promise.all([1, 2, 3].map(() => a.call('GET', '/tenants/me', { token: reg.key })));
    } finally {
      await release();
    }
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    // Decided on the last count the table gave plus this instance's own since.
    expect(answers.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort()).toEqual([56, 57, 58]);
    // The late statement is counted before the next one of the same key on this instance.
    expect((await a.call('GET', '/tenants/me', { token: reg.key })).headers.get('x-ratelimit-remaining')).toBe('55');
    expect((await b.call('GET', '/tenants/me', { token: reg.key })).headers.get('x-ratelimit-remaining')).toBe('54');
  }, 30_000);

  test('issue 35: an address that spent its anonymous limit through both instances stays refused on both while the counter is slow', async () => {
    const lines: { level: string; msg: string; scope?: string }[] = [];
    const c = await instance({ anonymousRateLimit: 10, logger: createLogger('warn', (line) => lines.push(JSON.parse(line))) });
    const d = await instance({ anonymousRateLimit: 10 });
    await freshWindow();
    const guess = (app: TestApp) => app.call('GET', '/tenants/me', { token: 'sk_test_guess', address: '198.51.100.35' });
    for (let i = 0; i < 5; i++) expect((await guess(c)).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await guess(d)).status).toBe(401);
    expect((await guess(c)).status).toBe(429);
    const release = await holdCounters();
    let late: number[];
    try {
      late = (await Promise.all([c, d, c, d].map(guess))).map((r) => r.status);
    } finally {
      await release();
    }
    // Counted alone from zero, each instance would let 10 more through.
    expect(late).toEqual([429, 429, 429, 429]);
    // Once for the two late requests on c.
    expect(lines.filter((l) => l.msg.startsWith('rate counters late')).map((l) => [l.level, l.scope])).toEqual([['warn', 'gateway']]);
  }, 60_000);

  /** Asks every 50 ms, for at most 1 s, until `changed` says the answer changed; the last answer. */
  const within1s = async (ask: () => ReturnType<TestApp['call']>, changed: (r: Awaited<ReturnType<TestApp['call']>>) => boolean) => {
    const until = performance.now() + 1000;
    let answer = await ask();
    while (!changed(answer) && performance.now() < until) {
      await Bun.sleep(50);
      answer = await ask();
    }
    return answer;
  };

  test('a key revoked through A is refused by B within 1 s, though B had it cached', async () => {
    const reg = await issuer(a);
    const key = await reg.createKey('test', 'revoked');
    expect((await a.call('GET', '/tenants/me', { token: key.key })).status).toBe(200);
    expect((await b.call('GET', '/tenants/me', { token: key.key })).status).toBe(200);
    expect((await b.call('GET', '/tenants/me', { token: key.key })).status).toBe(200); // from B's cache
    expect((await a.call('DELETE', `/api-keys/${key.id}`, { token: reg.token })).status).toBe(200);
    expect((await a.call('GET', '/tenants/me', { token: key.key })).status).toBe(401);
    const onB = await within1s(
      () => b.call('GET', '/tenants/me', { token: key.key }),
      (r) => r.status !== 200,
    );
    expect(onB.status).toBe(401);
    expect(onB.json.error.message).toBe('API key revoked');
  });

  test("a user deleted through A: B refuses the user's session within 1 s", async () => {
    const reg = await issuer(a);
    const viewer = await reg.userWithRole('VIEWER');
    // /tenants/me, not /auth/me, which reads the user again by itself.
    expect((await b.call('GET', '/tenants/me', { token: viewer.token })).status).toBe(200);
    expect((await b.call('GET', '/tenants/me', { token: viewer.token })).status).toBe(200); // from B's cache
    expect((await a.call('DELETE', `/users/${viewer.id}`, { token: reg.token })).status).toBe(200);
    const onB = await within1s(
      () => b.call('GET', '/tenants/me', { token: viewer.token }),
      (r) => r.status !== 200,
    );
    expect(onB.status).toBe(401);
    expect(onB.json.error.message).toBe('Access token revoked');
  });

  test("a plan changed by the operator's command (its own connection) takes effect on both within 1 s", async () => {
    const reg = await issuer(a, { keys: ['test'] });
    for (const instance of [a, b]) expect((await instance.call('GET', '/tenants/me', { token: reg.key })).headers.get('x-ratelimit-limit')).toBe('100');
    // What `cfdi-api set-plan` does: its own process, its own connection to the database.
    const operator = await openPostgres(scratch.url, { max: 2 });
    pools.push(operator);
    tellOthersThrough(operator, coordinationFor(operator, { listen: false }).identityChanges);
    expect(await setTenantPlan(operator, reg.tenant.id, 'pro', null, new Date())).toBe(true);
    for (const instance of [a, b]) {
      const answer = await within1s(
        () => instance.call('GET', '/tenants/me', { token: reg.key }),
        (r) => r.headers.get('x-ratelimit-limit') !== '100',
      );
      expect(answer.headers.get('x-ratelimit-limit')).toBe('300');
    }
  });
});

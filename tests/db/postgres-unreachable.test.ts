import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Socket, TCPSocketListener } from 'bun';
import { closeDatabase, type Db } from '../../src/db/index.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { DatabaseUnreachable } from '../../src/db/postgres/reach.ts';
import { createTestApp, ingreso, issuer, READY, TEST_ENGINE, type TestApp } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';
import { startingPostgres } from '../postgres-starting.ts';

/**
 * Found by tests/process/multi-instance.test.ts: while PostgreSQL restarts, requests answered 500. A database that
 * cannot be reached is an outage to wait out, like a full disk: 503 with Retry-After, so clients and load balancers
 * retry (with their Idempotency-Key) instead of treating it as a bug. The app reaches PostgreSQL through a TCP relay
 * this test cuts: open connections close, new ones are refused.
 */
describe.skipIf(!POSTGRES)('PostgreSQL unreachable', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  type Relayed = { upstream?: Socket<{ client: Socket<Relayed> }>; pending: Uint8Array[] };
  let relay: TCPSocketListener<Relayed>;
  const open = new Set<Socket<unknown>>();
  let db: Db;
  let t: TestApp;

  beforeAll(async () => {
    scratch = await scratchDatabase();
    const target = new URL(scratch.url);
    relay = Bun.listen<Relayed>({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        async open(client) {
          client.data = { pending: [] };
          open.add(client);
          const upstream = await Bun.connect<{ client: Socket<Relayed> }>({
            hostname: target.hostname,
            port: Number(target.port),
            data: { client },
            socket: {
              data: (_, bytes) => void client.write(bytes),
              close: () => void client.end(),
              error: () => void client.end(),
            },
          });
          open.add(upstream);
          client.data.upstream = upstream;
          for (const bytes of client.data.pending.splice(0)) upstream.write(bytes);
        },
        data(client, bytes) {
          if (client.data.upstream) client.data.upstream.write(bytes);
          else client.data.pending.push(new Uint8Array(bytes));
        },
        close: (client) => void client.data.upstream?.end(),
      },
    });
    const url = new URL(scratch.url);
    url.port = String(relay.port);
    db = await openPostgres(url.toString(), { max: 2 });
    t = await createTestApp({ db });
  });
  afterAll(async () => {
    await t?.app.worker.stop();
    if (db) await closeDatabase(db).catch(() => {});
    relay?.stop(true);
    await scratch?.drop();
  }, 20_000);

  test('requests answer 503 with Retry-After, not 500', async () => {
    const { key } = await issuer(t, READY);
    expect((await t.call('POST', '/cfdis', { token: key, body: ingreso() })).status).toBe(201);

    relay.stop(true);
    for (const socket of open) socket.end();

    const list = await t.call('GET', '/cfdis', { token: key });
    expect(list.status).toBe(503);
    expect(list.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(list.json.error.details[0].field).toBe('database');
    const issue = await t.call('POST', '/cfdis', { token: key, body: ingreso() });
    expect(issue.status).toBe(503);
  });
});

/**
 * Issue 34: a start waits for a server still coming up (refused, "the database system is starting up") for
 * DATABASE_CONNECT_TIMEOUT_SECONDS, and fails at once, in one line naming the setting, on what waiting cannot fix.
 */
describe.skipIf(!POSTGRES || TEST_ENGINE !== 'postgres')('PostgreSQL at start', () => {
  const open = async (url: string, seconds: number, waiting?: (problem: string) => void) => {
    const started = performance.now();
    try {
      await closeDatabase(await openPostgres(url, { wait: { seconds, waiting } }));
      return { ok: true, ms: performance.now() - started };
    } catch (err) {
      expect(err).toBeInstanceOf(DatabaseUnreachable);
      return { ok: false, message: (err as Error).message, ms: performance.now() - started };
    }
  };
  const withPart = (part: 'username' | 'pathname' | 'password', value: string, base = POSTGRES!) => {
    const url = new URL(base);
    url[part] = value;
    return url.toString();
  };

  test('an unknown role, a missing database, a wrong password: at once, naming the part of DATABASE_URL to fix', async () => {
    const where = `PostgreSQL ${new URL(POSTGRES!).host}`;
    const role = await open(withPart('username', 'nobody_i34'), 30);
    expect(role).toMatchObject({
      ok: false,
      message: `cannot use the database (${where}/postgres): role "nobody_i34" does not exist (fix the user in DATABASE_URL, or create that role on the server)`,
    });
    const database = await open(withPart('pathname', '/missing_i34'), 30);
    expect(database.message).toBe(
      `cannot use the database (${where}/missing_i34): database "missing_i34" does not exist (create it, or fix the database name in DATABASE_URL)`,
    );
    // This server trusts every local connection: a stand-in answers as one that checks passwords does.
    const server = startingPostgres(POSTGRES!, { answer: { code: '28P01', message: 'password authentication failed for user "postgres"' } });
    try {
      const password = await open(withPart('password', 'wrong', server.url), 30);
      expect(password.message).toEndWith(': password authentication failed for user "postgres" (fix the password in DATABASE_URL)');
      expect(password.message).not.toContain('wrong');
    } finally {
      server.stop();
    }
    for (const r of [role, database]) expect(r.ms).toBeLessThan(5_000);
  }, 20_000);

  test('refused, then starting up, then up: opened, after saying once what it waits for', async () => {
    // Opening migrates: a database of its own, never the server's shared ones.
    const own = await scratchDatabase();
    const server = startingPostgres(own.url, { refuseMs: 700, upAfterMs: 1_500 });
    const told: string[] = [];
    try {
      const result = await open(server.url, 30, (problem) => told.push(problem));
      expect(result).toMatchObject({ ok: true });
      expect(told).toEqual(['connection refused']);
    } finally {
      server.stop();
      await own.drop();
    }
  }, 20_000);

  test('a server that stays in start-up: gives up after the timeout, saying so and which setting waits longer', async () => {
    const server = startingPostgres(POSTGRES!, {});
    const told: string[] = [];
    try {
      const result = await open(server.url, 1, (problem) => told.push(problem));
      expect(result.message).toBe(
        `cannot reach the database (PostgreSQL ${new URL(server.url).host}/postgres): the database system is starting up, still after 1 s (raise DATABASE_CONNECT_TIMEOUT_SECONDS for a server that starts slowly)`,
      );
      expect(told).toEqual(['the database system is starting up']);
      expect(result.ms).toBeGreaterThanOrEqual(1_000);
    } finally {
      server.stop();
    }
  }, 20_000);
});

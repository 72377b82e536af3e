import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { TEST_ENGINE } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';
import { startingPostgres } from '../postgres-starting.ts';
import { startServer, stopServer } from './server.ts';

/** Issue 21, step 2: DATABASE_URL=postgres://… starts the service on PostgreSQL, and only with shared secrets. */
const work = mkdtempSync(join(tmpdir(), 'cfdi-pg-startup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SECRETS = { JWT_SECRET: 'p'.repeat(40), MASTER_KEY: 'cd'.repeat(32) };

// Each test runs once: the configuration checks need no server and run in the SQLite pass (every machine), the
// start-ups in the PostgreSQL pass (where there is a server).
const onPostgres = POSTGRES !== undefined && TEST_ENGINE === 'postgres';

describe('start-up on PostgreSQL', () => {
  for (const missing of ['JWT_SECRET', 'MASTER_KEY'] as const) {
    test.skipIf(TEST_ENGINE === 'postgres')(`without ${missing}: one line on stderr and exit 1, nothing generated`, async () => {
      const dataDir = join(work, `no-${missing}`);
      const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
        env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', ...SECRETS, [missing]: '' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect(await proc.exited).toBe(1);
      expect(await new Response(proc.stderr).text()).toBe(
        'Invalid configuration: DATABASE_URL is PostgreSQL, so JWT_SECRET and MASTER_KEY must be set (every instance shares them)\n',
      );
    });
  }

  test.skipIf(!onPostgres)(
    'with them: listens, /health reports the database up, DATA_DIR holds nothing',
    async () => {
      const scratch = await scratchDatabase();
      const dataDir = join(work, 'pg');
      try {
        const server = await startServer(dataDir, { DATABASE_URL: scratch.url, ...SECRETS });
        try {
          const health = await fetch(`${server.base}/health`);
          expect(health.status).toBe(200);
          expect(((await health.json()) as { info: { database: { status: string } } }).info.database.status).toBe('up');
          expect(server.startLog).toContain('"database":"postgres"');
          // Where the data and the catalogs are, not a DATA_DIR that holds nothing.
          const listening = JSON.parse(server.startLog.split('\n').find((l) => l.includes('"msg":"listening"'))!);
          expect(listening).toMatchObject({ database_at: `PostgreSQL ${new URL(scratch.url).host}${new URL(scratch.url).pathname}` });
          expect(listening.catalogs).toMatch(/^in memory, loaded at start$|^SQLite .*cfdi-catalogs-\d+\.sqlite, loaded at start for the workers$/);
          expect(listening.data_dir).toBeUndefined();
        } finally {
          await stopServer(server.proc);
        }
        expect(readdirSync(dataDir)).toEqual([]);
      } finally {
        await scratch.drop();
      }
    },
    60_000,
  );

  /** `npm start` as a new user sees it: one line on stderr, exit 1, no stack. */
  const start = async (env: Record<string, string>) => {
    const started = performance.now();
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: join(work, 'unusable'), LOG_LEVEL: 'info', ...SECRETS, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const code = await proc.exited;
    return { code, stderr: await new Response(proc.stderr).text(), stdout: await new Response(proc.stdout).text(), ms: performance.now() - started };
  };

  test.skipIf(TEST_ENGINE === 'postgres')(
    'a server that refuses past DATABASE_CONNECT_TIMEOUT_SECONDS: says it waits, then one line naming the setting; exit 1',
    async () => {
      const down = await start({ DATABASE_URL: 'postgres://nobody:hunter2@127.0.0.1:1/none', DATABASE_CONNECT_TIMEOUT_SECONDS: '1', WORKERS: '2' });
      expect(down.code).toBe(1);
      expect(down.stderr).toBe(
        'cannot reach the database (PostgreSQL 127.0.0.1:1/none): connection refused, still after 1 s (is the server running? check the host and port in DATABASE_URL, or raise DATABASE_CONNECT_TIMEOUT_SECONDS for a server that starts slowly)\n',
      );
      expect(down.stdout).toContain('"msg":"waiting for the database","database":"PostgreSQL 127.0.0.1:1/none","problem":"connection refused","timeout_s":1');
      expect(down.stdout + down.stderr).not.toContain('hunter2');
    },
    30_000,
  );

  test.skipIf(!onPostgres)(
    'a boot lock another session holds past BOOT_LOCK_TIMEOUT_SECONDS: one line naming the lock, that session and the setting; exit 1',
    async () => {
      const scratch = await scratchDatabase();
      const holder = postgres(scratch.url, { max: 1, onnotice: () => {} });
      try {
        // What an instance stuck in its start-up work leaves: the boot lock (src/db/postgres/advisory-locks.ts) held.
        const [held] = await holder<{ pid: number }[]>`select pg_backend_pid() as pid, pg_advisory_lock(${0x43464442})`;
        const stuck = await start({ DATABASE_URL: scratch.url, BOOT_LOCK_TIMEOUT_SECONDS: '1' });
        expect(stuck.code).toBe(1);
        expect(stuck.stderr).toStartWith(
          `the boot lock (PostgreSQL advisory lock ${0x43464442}) was not free within 1 s: held by PostgreSQL session ${held!.pid}`,
        );
        expect(stuck.stderr).toContain('or wait longer with BOOT_LOCK_TIMEOUT_SECONDS\n');
        expect(stuck.stderr.trim().split('\n')).toHaveLength(1);
        expect(stuck.stdout).not.toContain('uncaught');
      } finally {
        await holder.end();
        await scratch.drop();
      }
    },
    60_000,
  );

  test.skipIf(!onPostgres)(
    'a role or a database that does not exist: one line naming it and the setting to fix, exit 1, without waiting (1 and 2 workers)',
    async () => {
      const url = new URL(POSTGRES!);
      url.username = 'nobody_i34';
      const role = await start({ DATABASE_URL: url.toString(), WORKERS: '1' });
      url.username = new URL(POSTGRES!).username;
      url.pathname = '/missing_i34';
      const database = await start({ DATABASE_URL: url.toString(), WORKERS: '2' });
      const where = `PostgreSQL ${url.host}`;
      expect(role).toMatchObject({
        code: 1,
        stderr: `cannot use the database (${where}${new URL(POSTGRES!).pathname}): role "nobody_i34" does not exist (fix the user in DATABASE_URL, or create that role on the server)\n`,
      });
      expect(database).toMatchObject({
        code: 1,
        stderr: `cannot use the database (${where}/missing_i34): database "missing_i34" does not exist (create it, or fix the database name in DATABASE_URL)\n`,
      });
      for (const r of [role, database]) {
        expect(r.stdout).not.toContain('uncaught');
        expect(r.stdout).not.toContain('waiting for the database');
        expect(r.ms).toBeLessThan(20_000); // not the 30 s of DATABASE_CONNECT_TIMEOUT_SECONDS
      }
    },
    60_000,
  );

  test.skipIf(!onPostgres)(
    'a server still starting (refused, then "starting up"), as under docker-compose: waits, says so once, then serves (2 workers)',
    async () => {
      const scratch = await scratchDatabase();
      const server = startingPostgres(scratch.url, { refuseMs: 1_500, upAfterMs: 3_000 });
      try {
        const started = await startServer(join(work, 'starting'), { DATABASE_URL: server.url, ...SECRETS, WORKERS: '2' });
        try {
          const waits = started.startLog.split('\n').filter((l) => l.includes('"msg":"waiting for the database"'));
          expect(waits).toHaveLength(1);
          expect(JSON.parse(waits[0]!).problem).toMatch(/^(connection refused|the database system is starting up)$/);
          const listening = JSON.parse(started.startLog.split('\n').find((l) => l.includes('"msg":"listening"'))!);
          expect(listening).toMatchObject({ workers: 2, database_at: `PostgreSQL ${new URL(server.url).host}${new URL(scratch.url).pathname}` });
          expect(listening.catalogs).toMatch(/^SQLite .*cfdi-catalogs-\d+\.sqlite, loaded at start for the workers$/);
          const health = await fetch(`${started.base}/health`);
          expect(((await health.json()) as { info: { database: { status: string } } }).info.database.status).toBe('up');
        } finally {
          await stopServer(started.proc);
        }
      } finally {
        server.stop();
        await scratch.drop();
      }
    },
    90_000,
  );

  test.skipIf(!onPostgres)(
    '3 instances starting together on one database: one demo tenant, one sandbox SAT certificate served by all',
    async () => {
      const scratch = await scratchDatabase();
      try {
        const env = { DATABASE_URL: scratch.url, ...SECRETS, DEMO: 'true' };
        const servers = await Promise.all(['i1', 'i2', 'i3'].map((name) => startServer(join(work, name), env)));
        try {
          const certificates = await Promise.all(
            servers.map(async (s) => Buffer.from(await (await fetch(`${s.base}/sandbox/sat-certificate`)).arrayBuffer()).toString('base64')),
          );
          expect(new Set(certificates).size).toBe(1);
          expect(certificates[0]!.length).toBeGreaterThan(500);
        } finally {
          await Promise.all(servers.map((s) => stopServer(s.proc)));
        }
        const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
        try {
          const [row] = await sql`select (select count(*)::int from tenants) as tenants, (select count(*)::int from api_keys) as keys,
            (select count(*)::int from csds) as csds, (select count(*)::int from settings where key like 'sandbox_sat_%') as identity`;
          expect(row).toEqual({ tenants: 1, keys: 1, csds: 1, identity: 2 });
        } finally {
          await sql.end();
        }
      } finally {
        await scratch.drop();
      }
    },
    90_000,
  );
});

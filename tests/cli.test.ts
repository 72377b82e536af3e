import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli.ts';
import { openDatabase } from '../src/db/client.ts';
import { openPostgres } from '../src/db/postgres/client.ts';
import { closeDatabase, createTestApp, exec, issuer, query } from './helpers.ts';
import { POSTGRES, scratchDatabase } from './postgres.ts';
import { sql } from 'drizzle-orm';

describe('cli set-plan', () => {
  test('changes a tenant plan on the DATA_DIR database; rejects bad arguments', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-cli-'));
    const env = { DATA_DIR: dataDir };
    const db = openDatabase(join(dataDir, 'cfdi.sqlite'));
    const { tenant } = await issuer(await createTestApp({ db }));
    expect((await runCli(['set-plan', tenant.id, 'enterprise', '5000'], env)).code).toBe(0);
    expect(await query(db, sql`select plan, rate_limit_per_minute r from tenants`)).toEqual([{ plan: 'enterprise', r: 5000 }]);
    expect((await runCli(['set-plan', tenant.id, 'pro'], env)).code).toBe(0);
    expect(await query(db, sql`select plan, rate_limit_per_minute r from tenants`)).toEqual([{ plan: 'pro', r: null }]);
    expect((await runCli(['set-plan', tenant.id, 'gold'], env)).code).toBe(2);
    expect((await runCli(['set-plan', tenant.id, 'enterprise', '10'], env)).code).toBe(2);
    expect((await runCli(['set-plan', 'ten_missing', 'pro'], env)).code).toBe(1);
    expect((await runCli(['nope'], env)).code).toBe(2);
    await exec(db, sql`insert into jobs (id, type, payload, status, run_at, last_error) values ('job_1', 'cfdi.stamp', '{}', 'failed', '2026-01-01', 'boom')`);
    const failed = await runCli(['jobs'], env);
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.out)).toMatchObject({ id: 'job_1', type: 'cfdi.stamp', last_error: 'boom' });
    expect((await runCli(['jobs', 'queued'], env)).out).toBe('no queued jobs');
    expect((await runCli(['jobs', 'weird'], env)).code).toBe(2);
  });
});

describe('cli migrate', () => {
  const SQLITE_MIGRATIONS = JSON.parse(readFileSync(join(import.meta.dir, '../drizzle/sqlite/meta/_journal.json'), 'utf8')).entries.length as number;
  const POSTGRES_MIGRATIONS = JSON.parse(readFileSync(join(import.meta.dir, '../drizzle/postgres/meta/_journal.json'), 'utf8')).entries.length as number;
  const SHARED = { JWT_SECRET: 'j'.repeat(40), MASTER_KEY: 'ab'.repeat(32) };
  const ONCE_ONLY = sql`select key from settings where key in ('master_key_check', 'sandbox_sat_certificate', 'sandbox_sat_key') order by key`;

  test('on SQLite: applies the migrations and the boot work once, says so in one line; a second run finds nothing to do', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-cli-migrate-'));
    const first = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(first).toEqual({
      code: 0,
      out: `migrated SQLite ${join(dataDir, 'cfdi.sqlite')}: ${SQLITE_MIGRATIONS} migrations applied; master key check recorded; sandbox SAT certificate created`,
    });
    expect((await runCli(['migrate'], { DATA_DIR: dataDir })).out).toEndWith(
      ': 0 migrations applied; master key check matched; sandbox SAT certificate present',
    );
    const db = openDatabase(join(dataDir, 'cfdi.sqlite'));
    expect(await query(db, ONCE_ONLY)).toEqual([{ key: 'master_key_check' }, { key: 'sandbox_sat_certificate' }, { key: 'sandbox_sat_key' }]);
    expect((await runCli(['migrate', 'now'], { DATA_DIR: dataDir })).code).toBe(2);
    // Another master key cannot read what this database holds: refused, not "migrated".
    const other = await runCli(['migrate'], { DATA_DIR: dataDir, MASTER_KEY: 'cd'.repeat(32) });
    expect(other.code).toBe(1);
    expect(other.out).toStartWith('migrate refused: MASTER_KEY does not match');
  });

  test('an unreachable PostgreSQL: exit 1 and one line naming it (without its password), from the executable too', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'cfdi-cli-migrate-')), DATABASE_URL: 'postgres://nobody:hunter2@127.0.0.1:1/none', ...SHARED };
    const down = await runCli(['migrate'], env);
    expect(down.code).toBe(1);
    expect(down.out).toMatch(/^migrate failed: cannot open or migrate the database \(PostgreSQL 127\.0\.0\.1:1\/none\): .*ECONNREFUSED/);
    expect(down.out).not.toContain('hunter2');
    const proc = Bun.spawnSync([process.execPath, join(import.meta.dir, '../src/bin.ts'), 'migrate'], { env: { ...process.env, ...env } });
    expect(proc.exitCode).toBe(1);
    expect(proc.stderr.toString()).toBe(`${down.out}\n`);
  });

  test.skipIf(!POSTGRES)(
    'on PostgreSQL: applies its migrations and the boot work once; a second run finds nothing to do',
    async () => {
      const scratch = await scratchDatabase();
      try {
        const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'cfdi-cli-migrate-')), DATABASE_URL: scratch.url, ...SHARED };
        const where = `PostgreSQL ${new URL(scratch.url).host}${new URL(scratch.url).pathname}`;
        expect(await runCli(['migrate'], env)).toEqual({
          code: 0,
          out: `migrated ${where}: ${POSTGRES_MIGRATIONS} migrations applied; master key check recorded; sandbox SAT certificate created`,
        });
        const again = Bun.spawnSync(['npm', 'run', '--silent', 'cli', '--', 'migrate'], { env: { ...process.env, ...env } });
        expect(again.exitCode).toBe(0);
        expect(again.stdout.toString()).toBe(`migrated ${where}: 0 migrations applied; master key check matched; sandbox SAT certificate present\n`);
        const db = await openPostgres(scratch.url);
        try {
          expect(await query(db, ONCE_ONLY)).toEqual([{ key: 'master_key_check' }, { key: 'sandbox_sat_certificate' }, { key: 'sandbox_sat_key' }]);
        } finally {
          await closeDatabase(db);
        }
      } finally {
        await scratch.drop();
      }
    },
    30_000,
  );
});

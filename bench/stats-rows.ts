/**
 * Statistics without a hot row (issue 37, item 2), A/B in one run on PostgreSQL: `--concurrency` loops each insert a
 * CFDI of one tenant (same month, tipo, status and currency: one cfdi_stats key) in its own serializable transaction,
 * as issuing does, for `--seconds`, with the cfdis trigger function as it was (an UPSERT of the tenant's cfdi_stats
 * row, drizzle/postgres/0001), as it is (an INSERT into cfdi_stats_deltas, 0014) and doing nothing (the baseline),
 * alternated twice. Reported per
 * phase: inserts/s, re-runs per insert (serialization failures withTransaction re-ran, counted here) and PostgreSQL's
 * rollbacks per commit (pg_stat_database, every rollback of the database's sessions); then how long
 * GET /stats' read takes with the run's deltas pending and once folded, and how long folding them takes.
 *
 *   bun bench/stats-rows.ts [--seconds 5] [--concurrency 16]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { closeDatabase, executeSql, withTransaction } from '../src/db/index.ts';
import { openPostgres } from '../src/db/postgres/client.ts';
import { foldStatsDeltas, tenantStats } from '../src/invoices/stats/service.ts';
import type { Actor } from '../src/lib/backend.ts';
import type { IdentityDirectory } from '../src/lib/identity.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    postgres: { type: 'string', default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

/** The first statement of a migration file that defines cfdi_stats_move(), as a CREATE OR REPLACE. */
const definition = (file: string) =>
  readFileSync(new URL(`../drizzle/postgres/${file}`, import.meta.url), 'utf8')
    .split('--> statement-breakpoint')
    .find((s) => s.includes('FUNCTION cfdi_stats_move()'))!
    .replace(/CREATE (OR REPLACE )?FUNCTION/, 'CREATE OR REPLACE FUNCTION');
const FUNCTIONS = {
  upsert: definition('0001_triggers.sql'),
  deltas: definition('0014_cfdi_stats_deltas.sql'),
  // No statistics at all: what the insert itself costs and conflicts on (the baseline).
  none: 'CREATE OR REPLACE FUNCTION cfdi_stats_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$',
};

const admin = postgres(values.postgres, { max: 1, onnotice: () => {} });
const name = `bench_stats_rows_${process.pid}`;
await admin.unsafe(`create database ${name}`);
const url = new URL(values.postgres);
url.pathname = `/${name}`;
const db = await openPostgres(url.toString(), { max: concurrency });
try {
  await executeSql(
    db,
    sql`insert into tenants (id, rfc, nombre, regimen_fiscal, codigo_postal) values ('t1', 'EKU9003173C9', 'ESCUELA KEMPER URGATE', '601', '42501')`,
  );
  const xacts = async () =>
    (await admin<{ c: number; r: number }[]>`select xact_commit::int c, xact_rollback::int r from pg_stat_database where datname = ${name}`)[0]!;
  // PostgreSQL's backends report their counters at most once a second: wait for the last ones before reading.
  const settle = () => Bun.sleep(1500);
  let seq = 0;
  const phase = async (fn: keyof typeof FUNCTIONS) => {
    await executeSql(db, sql.raw(FUNCTIONS[fn]));
    await settle();
    const before = await xacts();
    let inserted = 0;
    let attempts = 0;
    let failed = 0;
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const id = `c${++seq}`;
          try {
            await withTransaction(db, { isolation: 'serializable', name: 'bench.stats-rows' }, async (tx) => {
              attempts++;
              await executeSql(
                tx,
                sql`insert into cfdis (id, tenant_id, environment, tipo, status, fecha, receptor_rfc, receptor_nombre, moneda, subtotal, total, summary)
                    values (${id}, 't1', 'test', 'I', 'vigente', '2026-11-24T10:00:00', 'XAXX010101000', 'PUBLICO', 'MXN', '100.00', '116.00', '{}')`,
              );
            });
            inserted++;
          } catch {
            failed++;
          }
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    await settle();
    const after = await xacts();
    const commits = after.c - before.c;
    const rollbacks = after.r - before.r;
    console.log(
      `${fn.padEnd(6)} | ${Math.round(inserted / elapsed)
        .toLocaleString('en-US')
        .padStart(
          6,
        )} inserts/s | ${((attempts - inserted - failed) / Math.max(1, inserted)).toFixed(2)} re-runs per insert | ${(rollbacks / Math.max(1, commits)).toFixed(2)} rollbacks per commit | ${failed} failed`,
    );
  };
  console.log(`PostgreSQL, ${concurrency} concurrent serializable transactions inserting CFDIs of one tenant and one stats key, ${seconds} s per phase`);
  for (const fn of ['upsert', 'deltas', 'none', 'upsert', 'deltas', 'none'] as const) await phase(fn);
  await executeSql(db, sql.raw(FUNCTIONS.deltas));
  // GET /stats' reading (the service, without HTTP) with the deltas of the run pending, then once they are folded.
  const identity = { members: async () => ({ usersByRole: {}, activeApiKeys: 0 }) } as unknown as IdentityDirectory;
  const read = async () => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const a = performance.now();
      await tenantStats({ db, identity }, { tenantId: 't1', environment: 'test' } as Actor, {}, new Date());
      times.push(performance.now() - a);
    }
    return `${times.sort((a, b) => a - b)[10]!.toFixed(1)} ms`;
  };
  const [pending] = await executeSql(db, sql`select count(*)::int as n from cfdi_stats_deltas`);
  const unfolded = await read();
  const f0 = performance.now();
  const folded = await foldStatsDeltas(db);
  const foldMs = Math.round(performance.now() - f0);
  console.log(`fold: ${folded.toLocaleString('en-US')} of ${Number(pending?.n).toLocaleString('en-US')} deltas in ${foldMs} ms`);
  console.log(`GET /stats' read, median of 20: ${unfolded} with those deltas pending, ${await read()} once folded`);
  console.log(`Bun ${Bun.version}`);
} finally {
  await closeDatabase(db);
  await admin.unsafe(`drop database ${name}`);
  await admin.end();
}

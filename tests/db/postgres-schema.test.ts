import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { type Db, openDatabase } from '../../src/db/client.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { foldStatsDeltas } from '../../src/invoices/stats/service.ts';
import * as postgresSchema from '../../src/db/postgres/schema.ts';
import * as sqliteSchema from '../../src/db/schema/index.ts';
import { is } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { POSTGRES, scratchDatabase } from '../postgres.ts';
import { closeDatabase, sqliteConnection } from '../helpers.ts';
import journal from '../../drizzle/postgres/meta/_journal.json' with { type: 'json' };

/** Tables that stay in the per-process SQLite file on both engines (the SAT catalogs and their search index). */
const SQLITE_ONLY = /^(catalog_|sqlite_|__drizzle)/;

describe.skipIf(!POSTGRES)('PostgreSQL schema: the same tables, columns, indexes and triggers as SQLite', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  let sql: postgres.Sql;
  beforeAll(async () => {
    scratch = await scratchDatabase();
    sql = postgres(scratch.url, { max: 4, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql.end();
    await scratch.drop();
  });

  test('the PostgreSQL schema module mirrors every table but the catalogs, under the same names', () => {
    const tables = Object.entries(sqliteSchema)
      .filter(([, t]) => is(t, SQLiteTable))
      .map(([name]) => name);
    expect(Object.keys(postgresSchema).sort()).toEqual(tables.filter((name) => name !== 'catalogEntries').sort());
  });

  test('migrations apply once, even from several instances starting together', async () => {
    const counts = await Promise.all([migratePostgres(sql), migratePostgres(sql), migratePostgres(sql)]);
    const [applied] = await sql`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(applied?.n).toBe(journal.entries.length);
    // Each says how many it applied: the first all, the others none.
    expect(counts.sort((a, b) => a - b)).toEqual([0, 0, journal.entries.length]);
  });

  test('every SQLite table has its twin with the same columns, nullability, keys and indexes', async () => {
    // SQLite's side of the comparison: its catalog and pragmas.
    const lite = sqliteConnection(openDatabase(':memory:'));
    const liteTables = (lite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[])
      .map((t) => t.name)
      .filter((name) => !SQLITE_ONLY.test(name))
      .sort();
    const pgTables = (await sql`select table_name from information_schema.tables where table_schema = 'public'`).map((t) => t.table_name as string).sort();
    expect(pgTables).toEqual(liteTables);
    for (const table of liteTables) {
      const liteColumns = (lite.prepare(`pragma table_info(${table})`).all() as { name: string; notnull: number; pk: number }[])
        .map((c) => `${c.name} ${c.notnull || c.pk ? 'not null' : 'null'}`)
        .sort();
      const pgColumns = (await sql`select column_name, is_nullable from information_schema.columns where table_schema = 'public' and table_name = ${table}`)
        .map((c) => `${c.column_name} ${c.is_nullable === 'NO' ? 'not null' : 'null'}`)
        .sort();
      expect({ table, columns: pgColumns }).toEqual({ table, columns: liteColumns });
      const liteIndexes = (lite.prepare(`pragma index_list(${table})`).all() as { name: string; unique: number; origin: string }[])
        .filter((i) => i.origin === 'c')
        .map((i) => `${i.name}${i.unique ? ' unique' : ''}`)
        .sort();
      const pgIndexes = (
        await sql`select indexname, indexdef from pg_indexes where schemaname = 'public' and tablename = ${table} and indexname not like '%_pkey' and indexname not like '%_pk'`
      )
        .map((i) => `${i.indexname}${/UNIQUE/.test(i.indexdef) ? ' unique' : ''}`)
        .sort();
      expect({ table, indexes: pgIndexes }).toEqual({ table, indexes: liteIndexes });
    }
  });

  test('cfdi_stats (with its deltas) follows every write of a CFDI, in exact millionths; the audit log refuses updates and deletes', async () => {
    await sql`insert into tenants (id, rfc, nombre, regimen_fiscal, codigo_postal) values ('t1', 'EKU9003173C9', 'ESCUELA KEMPER URGATE', '601', '42501')`;
    const cfdi = {
      tenant_id: 't1',
      environment: 'test',
      tipo: 'I',
      status: 'en_cola',
      fecha: '2026-11-24T10:00:00',
      receptor_rfc: 'XAXX010101000',
      receptor_nombre: 'PUBLICO',
      moneda: 'MXN',
      subtotal: '100',
      summary: '{}',
    };
    await sql`insert into cfdis ${sql({ id: 'c1', ...cfdi, total: '116.000001' })}`;
    await sql`insert into cfdis ${sql({ id: 'c2', ...cfdi, total: '10' })}`;
    await sql`update cfdis set status = 'vigente' where id = 'c1'`;
    // Each write appends what it moves (no shared row updated): +1 in, -1 out, exact millionths.
    const deltas = await sql`select status, cantidad::int, total_micros::text from cfdi_stats_deltas order by id`;
    expect(deltas.map((s) => [s.status, s.cantidad, s.total_micros])).toEqual([
      ['en_cola', 1, '116000001'],
      ['en_cola', 1, '10000000'],
      ['en_cola', -1, '-116000001'],
      ['vigente', 1, '116000001'],
    ]);
    const stats = await sql`select status, sum(cantidad)::int as cantidad, sum(total_micros)::text as total_micros
      from (select status, cantidad, total_micros from cfdi_stats union all select status, cantidad, total_micros from cfdi_stats_deltas) s
      group by status having sum(cantidad) > 0 order by status`;
    expect(stats.map((s) => [s.status, s.cantidad, s.total_micros])).toEqual([
      ['en_cola', 1, '10000000'],
      ['vigente', 1, '116000001'],
    ]);
    await sql`insert into audit_log ${sql({ id: 'a1', tenant_id: 't1', environment: 'test', actor_type: 'user', actor_id: 'u1', action: 'x', method: 'POST', path: '/', status: 200, resource_type: 'x', request_id: 'r', created_at: '2026-11-24T10:00:00Z' })}`;
    await expect(sql`update audit_log set status = 500`).rejects.toThrow('append-only');
    await expect(sql`delete from audit_log`).rejects.toThrow('append-only');
  });
});

describe.skipIf(!POSTGRES)('PostgreSQL migration 0014: statistics without a hot row', () => {
  test('the cfdi_stats rows written before it stay valid: the deltas written after it add to them, and folding adds them in', async () => {
    const scratch = await scratchDatabase();
    const sql = postgres(scratch.url, { max: 4, onnotice: () => {} });
    // The migrations before 0014 (a copy of the folder whose journal stops there), as a database made before it has them.
    const before = mkdtempSync(join(tmpdir(), 'pg-before-0014-'));
    let db: Db | undefined;
    try {
      cpSync(join(import.meta.dir, '../../drizzle/postgres'), before, { recursive: true });
      const entries = journal.entries.filter((e) => e.tag < '0014_cfdi_stats_deltas');
      writeFileSync(join(before, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }));
      await migrate(drizzle(sql), { migrationsFolder: before });

      await sql`insert into tenants (id, rfc, nombre, regimen_fiscal, codigo_postal) values ('t1', 'EKU9003173C9', 'ESCUELA KEMPER URGATE', '601', '42501')`;
      const cfdi = (id: string, fecha: string, total: string) => ({
        id,
        tenant_id: 't1',
        environment: 'test',
        tipo: 'I',
        status: 'en_cola',
        fecha,
        receptor_rfc: 'XAXX010101000',
        receptor_nombre: 'PUBLICO',
        moneda: 'MXN',
        subtotal: '1',
        total,
        summary: '{}',
      });
      await sql`insert into cfdis ${sql([cfdi('c1', '2026-10-02T10:00:00', '116.5'), cfdi('c2', '2026-10-03T10:00:00', '10'), cfdi('c3', '2026-11-01T10:00:00', '0.01')])}`;
      await sql`update cfdis set status = 'vigente' where id in ('c1', 'c3')`;
      const folded = async () =>
        (await sql`select mes, status, cantidad::int, total_micros::text from cfdi_stats order by mes, status`).map((r) => Object.values(r));
      const old = await folded();
      expect(old).toEqual([
        ['2026-10', 'en_cola', 1, '10000000'],
        ['2026-10', 'vigente', 1, '116500000'],
        ['2026-11', 'en_cola', 0, '0'],
        ['2026-11', 'vigente', 1, '10000'],
      ]);

      let applied = -1;
      db = await openPostgres(scratch.url, { migrated: (n) => (applied = n) });
      // 0014 and the migrations after it.
      expect(applied).toBe(journal.entries.length - entries.length);
      expect(await folded()).toEqual(old);

      // After it: writes append deltas and leave the folded rows alone.
      await sql`insert into cfdis ${sql(cfdi('c4', '2026-11-05T10:00:00', '2.25'))}`;
      await sql`update cfdis set status = 'cancelado' where id = 'c1'`;
      await sql`update cfdis set status = 'vigente' where id = 'c2'`;
      expect(await folded()).toEqual(old);
      const [pending] = await sql`select count(*)::int as n from cfdi_stats_deltas`;
      expect(pending!.n).toBe(5);

      // Folded rows plus deltas, as GET /stats sums them, against the invoices themselves.
      const fromInvoices = async () =>
        (
          await sql`select substr(fecha, 1, 7) as mes, status, count(*)::int as cantidad, sum((total::numeric * 1000000)::bigint)::text as total_micros
            from cfdis group by 1, 2 order by 1, 2`
        ).map((r) => Object.values(r));
      const summed = async () =>
        (
          await sql`select mes, status, sum(cantidad)::int as cantidad, sum(total_micros)::text as total_micros
            from (select mes, status, cantidad, total_micros from cfdi_stats union all select mes, status, cantidad, total_micros from cfdi_stats_deltas) s
            group by 1, 2 having sum(cantidad) > 0 order by 1, 2`
        ).map((r) => Object.values(r));
      const truth = await fromInvoices();
      expect(await summed()).toEqual(truth);
      expect(await foldStatsDeltas(db)).toBe(5);
      expect(await summed()).toEqual(truth);
      expect((await folded()).filter((r) => (r[2] as number) > 0)).toEqual(truth);
    } finally {
      if (db) await closeDatabase(db);
      await sql.end();
      rmSync(before, { recursive: true, force: true });
      await scratch.drop();
    }
  });
});

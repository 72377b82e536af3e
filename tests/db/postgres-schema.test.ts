import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import * as postgresSchema from '../../src/db/postgres/schema.ts';
import * as sqliteSchema from '../../src/db/schema/index.ts';
import { is } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { POSTGRES, scratchDatabase } from '../postgres.ts';
import { sqliteConnection } from '../helpers.ts';
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

  test('cfdi_stats follows every write of a CFDI, in exact millionths; the audit log refuses updates and deletes', async () => {
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
    const stats = await sql`select status, cantidad::int, total_micros::text from cfdi_stats where cantidad > 0 order by status`;
    expect(stats.map((s) => [s.status, s.cantidad, s.total_micros])).toEqual([
      ['en_cola', 1, '10000000'],
      ['vigente', 1, '116000001'],
    ]);
    await sql`insert into audit_log ${sql({ id: 'a1', tenant_id: 't1', environment: 'test', actor_type: 'user', actor_id: 'u1', action: 'x', method: 'POST', path: '/', status: 200, resource_type: 'x', request_id: 'r', created_at: '2026-11-24T10:00:00Z' })}`;
    await expect(sql`update audit_log set status = 500`).rejects.toThrow('append-only');
    await expect(sql`delete from audit_log`).rejects.toThrow('append-only');
  });
});

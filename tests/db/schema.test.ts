import { describe, expect, test } from 'bun:test';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { openDatabase } from '../../src/db/client.ts';
import * as schema from '../../src/db/schema/index.ts';
import { sqliteConnection } from '../helpers.ts';

const tables = (Object.values(schema) as unknown[]).filter(
  (v): v is SQLiteTable => typeof v === 'object' && v !== null && Symbol.for('drizzle:IsDrizzleTable') in v,
);

describe('database schema', () => {
  test('every table but tenants, settings, catalog_entries, login_failures, login_addresses and rate_counters (service-wide) has tenant_id (tenancy is in the structure)', () => {
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const table of tables) {
      const { name, columns } = getTableConfig(table);
      // login_failures counts by email, whether or not any tenant has it (an unknown email must be counted the same);
      // login_addresses remembers by email too.
      // rate_counters counts by credential, tenant or client address (a budget's name carries what it belongs to).
      if (['tenants', 'settings', 'catalog_entries', 'login_failures', 'login_addresses', 'rate_counters'].includes(name)) continue;
      expect(columns.map((c) => c.name)).toContain('tenant_id');
    }
  });

  test('the migrations create exactly the tables of the schema, with the pragmas set', () => {
    // SQLite-only: SQLite's migrations, catalog and pragmas.
    const sqlite = sqliteConnection(openDatabase(':memory:'));
    const names = (
      sqlite.prepare("select name from sqlite_master where type = 'table' and name not like '\\_\\_%' escape '\\' and name not like 'sqlite_%'").all() as {
        name: string;
      }[]
    )
      .map((r) => r.name)
      .sort();
    // Plus one FTS5 index over the catalogs (migration 0011; Drizzle has no virtual tables) and its shadow tables.
    const search = names.filter((n) => /^catalog_search(_(data|idx|content|docsize|config))?$/.test(n));
    expect(search).toEqual([
      'catalog_search',
      'catalog_search_config',
      'catalog_search_content',
      'catalog_search_data',
      'catalog_search_docsize',
      'catalog_search_idx',
    ]);
    expect(names.filter((n) => !search.includes(n))).toEqual(tables.map((t) => getTableConfig(t).name).sort());
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
  });
});

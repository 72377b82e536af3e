import { describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCsv } from '../../src/catalogs/csv.ts';
import { catalogEntry, catalogKey, isPostalCode, regimenFiscal } from '../../src/catalogs/index.ts';
import { catalogEntries } from '../../src/db/schema/index.ts';
import { closeDatabase, count, query } from '../helpers.ts';

const MiB = 1024 * 1024;

describe('catalogs', () => {
  test('CSV with quoted commas', () => {
    expect(parseCsv('a,b\n1,"x, ""y"""\n')).toEqual([{ a: '1', b: 'x, "y"' }]);
  });
  test('régimen 622 (quoted description) and postal codes', () => {
    expect(regimenFiscal('622')).toMatchObject({ moral: true, fisica: false });
    expect(regimenFiscal('622')!.descripcion).toContain('Ganaderas');
    expect(regimenFiscal('626')).toMatchObject({ moral: true, fisica: true });
    expect(isPostalCode('42501')).toBe(true);
    expect(isPostalCode('01000')).toBe(true);
    expect(isPostalCode('00000')).toBe(false);
  });
});

describe('catalog seeding', () => {
  test('copies every catalog into SQLite once per version', async () => {
    const { openDatabase } = await import('../../src/db/client.ts');
    const { seedCatalogs } = await import('../../src/catalogs/seed.ts');
    const db = openDatabase(':memory:');
    expect(await seedCatalogs(db)).toBe(true);
    expect(await seedCatalogs(db)).toBe(false);
    const [row] = await query<{ descripcion: string; data: string }>(
      db,
      sql`select descripcion, data from catalog_entries where catalog = 'c_UsoCFDI' and clave = 'G03'`,
    );
    expect(row!.descripcion).toBe('Gastos en general.');
    expect(JSON.parse(row!.data).regimenes_receptor).toContain('601');
    expect(await count(db, catalogEntries, eq(catalogEntries.catalog, 'c_ClaveProdServ'))).toBe(52514);
  }, 30_000); // ~2 s alone; 7 s seen on two cores shared with another suite

  test('a business database that holds the catalogs gives them up, once, and shrinks to its own data', async () => {
    const { openDatabase } = await import('../../src/db/client.ts');
    const { removeCatalogs, seedCatalogs } = await import('../../src/catalogs/seed.ts');
    const { readSetting } = await import('../../src/db/settings.ts');
    const dir = mkdtempSync(join(tmpdir(), 'cfdi-catalogs-'));
    try {
      const file = join(dir, 'cfdi.sqlite');
      const db = openDatabase(file);
      await seedCatalogs(db);
      expect(statSync(file).size).toBeGreaterThan(50 * MiB);
      expect(await removeCatalogs(db)).toBe(true);
      expect(await count(db, catalogEntries)).toBe(0);
      expect(await query(db, sql`select 1 from catalog_search limit 1`)).toEqual([]);
      expect(await readSetting(db, 'catalog_version')).toBeUndefined();
      expect(await removeCatalogs(db)).toBe(false);
      await closeDatabase(db);
      expect(statSync(file).size).toBeLessThan(2 * MiB);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('catalog lookups', () => {
  test('a large catalog, kept as row text, answers every key with exactly the row the CSV parser reads', () => {
    for (const name of ['c_CodigoPostal', 'c_ClaveProdServ', 'c_ClaveUnidad', 'c_RegimenFiscal'] as const) {
      const rows = parseCsv(readFileSync(new URL(`../../src/catalogs/data/${name}.csv`, import.meta.url), 'utf8'));
      const last = new Map(rows.map((r) => [catalogKey(name, r), r]));
      expect(last.size).toBeGreaterThan(10);
      for (const [key, row] of last) expect(catalogEntry(name, key)).toEqual(row);
      expect(catalogEntry(name, 'no-such-key')).toBeUndefined();
    }
  });
});

import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { catalogEntries, settings } from '../db/schema/index.ts';
import { CATALOG_KEYS, CATALOG_VERSION, catalogKey, catalogRows, type CatalogName } from './index.ts';

/** The catalogs searched by words, and the columns that hold them. */
export const SEARCHABLE: Partial<Record<CatalogName, string[]>> = {
  c_ClaveProdServ: ['descripcion', 'palabras_similares'],
  c_ClaveUnidad: ['nombre', 'descripcion', 'simbolo'],
};

/**
 * Copies every shipped catalog into `catalog_entries` when the database holds another version (or none), in one
 * transaction. Runs after the migrations; a database already at CATALOG_VERSION costs one read. `onLoad` is told
 * before a load starts (the start-up's progress line).
 */
export function seedCatalogs(db: Db, onLoad?: () => void): boolean {
  const current = db.select().from(settings).where(eq(settings.key, 'catalog_version')).get();
  const indexed = db.$client.prepare('select 1 from catalog_search limit 1').get() !== undefined;
  if (current?.value.toString('utf8') === CATALOG_VERSION && indexed) return false;
  onLoad?.();
  const index = db.$client.prepare('insert into catalog_search (catalog, clave, texto) values (?, ?, ?)');
  const insert = db.$client.prepare(
    'insert into catalog_entries (catalog, clave, descripcion, valid_from, valid_to, data) values (?, ?, ?, ?, ?, ?)',
  );
  db.transaction((tx) => {
    tx.delete(catalogEntries).run();
    tx.run(sql`delete from catalog_search`);
    for (const name of Object.keys(CATALOG_KEYS) as CatalogName[]) {
      const searchable = SEARCHABLE[name];
      for (const row of catalogRows(name)) {
        const clave = catalogKey(name, row);
        insert.run(name, clave, row.descripcion ?? row.nombre ?? null, row.valid_from || null, row.valid_to || null, JSON.stringify(row));
        if (searchable) index.run(name, clave, searchable.map((column) => row[column] ?? '').join(' '));
      }
    }
    tx.insert(settings)
      .values({ key: 'catalog_version', value: Buffer.from(CATALOG_VERSION) })
      .onConflictDoUpdate({ target: settings.key, set: { value: Buffer.from(CATALOG_VERSION) } })
      .run();
  });
  return true;
}

import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { catalogEntries, settings } from '../db/schema/index.ts';
import { CATALOG_KEYS, CATALOG_VERSION, catalogKey, catalogRows, type CatalogName } from './index.ts';

/**
 * Copies every shipped catalog into `catalog_entries` when the database holds another version (or none), in one
 * transaction. Runs after the migrations; a database already at CATALOG_VERSION costs one read.
 */
export function seedCatalogs(db: Db): boolean {
  const current = db.select().from(settings).where(eq(settings.key, 'catalog_version')).get();
  if (current?.value.toString('utf8') === CATALOG_VERSION) return false;
  const insert = db.$client.prepare(
    'insert into catalog_entries (catalog, clave, descripcion, valid_from, valid_to, data) values (?, ?, ?, ?, ?, ?)',
  );
  db.transaction((tx) => {
    tx.delete(catalogEntries).run();
    for (const name of Object.keys(CATALOG_KEYS) as CatalogName[]) {
      for (const row of catalogRows(name)) {
        insert.run(name, catalogKey(name, row), row.descripcion ?? row.nombre ?? null, row.valid_from || null, row.valid_to || null, JSON.stringify(row));
      }
    }
    tx.insert(settings)
      .values({ key: 'catalog_version', value: Buffer.from(CATALOG_VERSION) })
      .onConflictDoUpdate({ target: settings.key, set: { value: Buffer.from(CATALOG_VERSION) } })
      .run();
  });
  return true;
}

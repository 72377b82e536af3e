import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { catalogEntries, settings } from '../db/schema/index.ts';
import { CATALOG_KEYS, CATALOG_VERSION, catalogKey, catalogRows, type CatalogName } from './index.ts';
import { withTransaction } from '../db/index.ts';
import { insertMany, statement } from '../db/prepared.ts';

const INSERT_ENTRY = 'insert into catalog_entries (catalog, clave, descripcion, valid_from, valid_to, data) values (?, ?, ?, ?, ?, ?)';
const INSERT_SEARCH = 'insert into catalog_search (catalog, clave, texto) values (?, ?, ?)';

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
export async function seedCatalogs(db: Db, onLoad?: () => void): Promise<boolean> {
  const current = (await db.select().from(settings).where(eq(settings.key, 'catalog_version')))[0];
  const indexed = (await statement(db, 'select 1 from catalog_search limit 1').get()) !== undefined;
  if (current?.value.toString('utf8') === CATALOG_VERSION && indexed) return false;
  onLoad?.();
  await withTransaction(db, async (tx) => {
    await tx.delete(catalogEntries);
    await tx.run(sql`delete from catalog_search`);
    // Some hundred thousand rows: one synchronous batch inside the transaction, not an await per row.
    await insertMany(tx, (run) => {
      for (const name of Object.keys(CATALOG_KEYS) as CatalogName[]) {
        const searchable = SEARCHABLE[name];
        for (const row of catalogRows(name)) {
          const clave = catalogKey(name, row);
          run(INSERT_ENTRY, name, clave, row.descripcion ?? row.nombre ?? null, row.valid_from || null, row.valid_to || null, JSON.stringify(row));
          if (searchable) run(INSERT_SEARCH, name, clave, searchable.map((column) => row[column] ?? '').join(' '));
        }
      }
    });
    await tx.insert(settings)
      .values({ key: 'catalog_version', value: Buffer.from(CATALOG_VERSION) })
      .onConflictDoUpdate({ target: settings.key, set: { value: Buffer.from(CATALOG_VERSION) } });
  });
  return true;
}

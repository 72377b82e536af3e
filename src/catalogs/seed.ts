import type { Db } from '../db/client.ts';
import { withTransaction } from '../db/index.ts';
import { deleteSetting, readSetting, writeSetting } from '../db/settings.ts';
import { CATALOG_KEYS, CATALOG_VERSION, catalogKey, catalogRows, type CatalogName } from './index.ts';
import { catalogQueries, type CatalogLoadRow } from './queries.ts';

/** The catalogs searched by words, and the columns that hold them. */
export const SEARCHABLE: Partial<Record<CatalogName, string[]>> = {
  c_ClaveProdServ: ['descripcion', 'palabras_similares'],
  c_ClaveUnidad: ['nombre', 'descripcion', 'simbolo'],
  c_ClaveProdServCP: ['descripcion', 'palabras_similares'],
  c_MaterialPeligroso: ['descripcion', 'nombre_tecnico'],
  c_FraccionArancelaria: ['descripcion'],
};

/**
 * Copies every shipped catalog into `catalog_entries` when the database holds another version (or none), in one
 * transaction. Runs after the migrations; a database already at CATALOG_VERSION costs one read. `onLoad` is told
 * before a load starts (the start-up's progress line).
 */
export async function seedCatalogs(db: Db, onLoad?: () => void): Promise<boolean> {
  const queries = catalogQueries(db);
  const current = await readSetting(db, 'catalog_version');
  if (current?.toString('utf8') === CATALOG_VERSION && (await queries.indexed(db))) return false;
  onLoad?.();
  // read committed: the whole table is replaced and the version written, under the boot lock; nothing read decides it
  await withTransaction(db, { isolation: 'read committed', name: 'catalogs.seed' }, async (tx) => {
    await queries.load(tx, shippedRows());
    await writeSetting(tx, 'catalog_version', Buffer.from(CATALOG_VERSION), new Date());
  });
  return true;
}

/** On SQLite, the catalogs' file in DATA_DIR: a cache of the shipped CSVs, never backed up, rebuilt when missing. */
export const CATALOGS_FILE = 'catalogs.sqlite';

/**
 * The business database holds no catalogs: they live in a SQLite file of their own (docs/decisions.md, "The catalogs
 * stay out of backups"), so a backup of it is business data only. One that still holds them gives them up, once, and
 * is compacted; later starts find no `catalog_version` in it and cost one read.
 */
export async function removeCatalogs(db: Db): Promise<boolean> {
  if ((await readSetting(db, 'catalog_version')) === undefined) return false;
  const queries = catalogQueries(db);
  // read committed: the table emptied and the version removed; nothing read decides it
  await withTransaction(db, { isolation: 'read committed', name: 'catalogs.remove' }, async (tx) => {
    await queries.load(tx, []);
    await deleteSetting(tx, 'catalog_version');
  });
  await queries.compact(db);
  return true;
}

/** Read by the engine only, not served: c_Colonia's 145,000 rows would double the catalogs' load for no endpoint yet. */
const ENGINE_ONLY = new Set<CatalogName>(['c_Colonia']);

function* shippedRows(): Generator<CatalogLoadRow> {
  for (const catalog of Object.keys(CATALOG_KEYS) as CatalogName[]) {
    if (ENGINE_ONLY.has(catalog)) continue;
    const searchable = SEARCHABLE[catalog];
    const seen = new Set<string>();
    for (const data of catalogRows(catalog)) {
      const clave = catalogKey(catalog, data);
      if (seen.has(clave)) continue; // a key SAT repeats: the first row stands, as catalogEntry reads it
      seen.add(clave);
      yield {
        catalog,
        clave,
        descripcion: data.descripcion ?? data.nombre ?? null,
        validFrom: data.valid_from || null,
        validTo: data.valid_to || null,
        data,
        searchText: searchable?.map((column) => data[column] ?? '').join(' '),
      };
    }
  }
}

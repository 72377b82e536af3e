import { primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** SAT catalogs, copied from the shipped CSVs at start-up (`seedCatalogs`). Not tenant data. */
export const catalogEntries = sqliteTable(
  'catalog_entries',
  {
    catalog: text('catalog').notNull(),
    clave: text('clave').notNull(),
    descripcion: text('descripcion'),
    validFrom: text('valid_from'),
    validTo: text('valid_to'),
    /** Every column of the CSV row. */
    data: text('data', { mode: 'json' }).notNull().$type<Record<string, string>>(),
  },
  (t) => [primaryKey({ columns: [t.catalog, t.clave] })],
);

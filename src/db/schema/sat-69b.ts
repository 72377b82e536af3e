import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/**
 * The Lista 69-B lists this service knows (docs/decisions.md, "Lista 69-B"): `published`, the one loaded from
 * SAT_69B_URL, everyone's; and one per tenant and environment it uploaded (id `<tenant id>:<environment>`), only its own.
 * A load replaces its list whole.
 */
export const sat69bLists = sqliteTable('sat_69b_lists', {
  id: text('id').primaryKey(),
  /** None: the published list. */
  tenantId: text('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
  environment: text('environment', { enum: ENVIRONMENTS }),
  source: text('source', { enum: ['url', 'upload'] }).notNull(),
  /** The date the list says it was updated (YYYY-MM-DD), when it says one. */
  listDate: text('list_date'),
  entries: integer('entries').notNull(),
  loadedAt: text('loaded_at').notNull().default(now),
});

/**
 * One taxpayer of a list: its RFC and situación (presunto, definitivo, desvirtuado, sentencia_favorable); tenant_id is
 * its list's (none on the published list).
 */
export const sat69bEntries = sqliteTable(
  'sat_69b_entries',
  {
    listId: text('list_id')
      .notNull()
      .references(() => sat69bLists.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    rfc: text('rfc').notNull(),
    situacion: text('situacion', { enum: ['presunto', 'definitivo', 'desvirtuado', 'sentencia_favorable'] }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.listId, t.rfc] })],
);

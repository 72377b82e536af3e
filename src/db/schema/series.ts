import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/**
 * Invoice series and their folio counters. `next_folio` is consumed by an atomic UPDATE … RETURNING inside the
 * invoice's transaction. At most one default per tenant and environment (partial unique index).
 */
export const series = sqliteTable(
  'series',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    serie: text('serie').notNull(),
    nextFolio: integer('next_folio').notNull().default(1),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    descripcion: text('descripcion'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('series_serie_unique').on(t.tenantId, t.environment, t.serie),
    uniqueIndex('series_default_unique').on(t.tenantId, t.environment).where(sql`is_default = 1`),
    index('series_tenant_idx').on(t.tenantId, t.environment, t.id),
  ],
);

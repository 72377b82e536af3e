import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/**
 * A tenant's scheduled Descarga Masiva sync in one environment (opt-in, PUT /sat-downloads/sync): each day's metadata
 * in both directions, then the XML of the received vigentes not stored yet (docs/decisions.md, "Descarga Masiva (issue
 * 39)"). `synced_through` is the last day (SAT's local date) whose metadata requests the sync made or found made.
 */
export const satDownloadSyncs = sqliteTable(
  'sat_download_syncs',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    syncedThrough: text('synced_through'),
    lastRunAt: text('last_run_at'),
    /** What the last run did or why it skipped (no FIEL). */
    lastResult: text('last_result'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [uniqueIndex('sat_download_syncs_tenant_unique').on(t.tenantId, t.environment)],
);

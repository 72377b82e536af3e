import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { cfdis } from './cfdis.ts';

/** Every move of a CFDI's status after stamping (cancellation, withdrawal), with its time and reason. */
export const cfdiStatusChanges = sqliteTable(
  'cfdi_status_changes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    cfdiId: text('cfdi_id')
      .notNull()
      .references(() => cfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    fromStatus: text('from_status').notNull(),
    toStatus: text('to_status').notNull(),
    reason: text('reason').notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('cfdi_status_changes_cfdi_idx').on(t.cfdiId, t.id)],
);

import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { cfdiStampAttempts } from './cfdi-stamp-attempts.ts';
import { retenciones } from './retenciones.ts';

/**
 * Every stamping attempt of a live retención, by any instance, as cfdi_stamp_attempts is a CFDI's: the failover router
 * decides from it. A table per document kind, so each keeps its foreign key and its cascade.
 */
export const retencionStampAttempts = sqliteTable(
  'retencion_stamp_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    retencionId: text('retencion_id')
      .notNull()
      .references(() => retenciones.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    pac: text('pac').notNull(),
    outcome: text('outcome', { enum: cfdiStampAttempts.outcome.enumValues }).notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('retencion_stamp_attempts_retencion_idx').on(t.retencionId, t.id)],
);

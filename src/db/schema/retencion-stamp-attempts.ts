import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { cfdiDuplicateStamps, cfdiStampAttempts } from './cfdi-stamp-attempts.ts';
import { ENVIRONMENTS } from './columns.ts';
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

/**
 * A second stamp of one retención's document by another PAC (found at a PAC left behind after failover, or a late
 * answer), as cfdi_duplicate_stamps is a CFDI's: the UUID first recorded stays, this one is cancelled at its PAC with
 * motivo 02 and reported (retencion.duplicate_stamp_cancelled).
 */
export const retencionDuplicateStamps = sqliteTable(
  'retencion_duplicate_stamps',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    retencionId: text('retencion_id')
      .notNull()
      .references(() => retenciones.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    pac: text('pac').notNull(),
    uuid: text('uuid').notNull(),
    status: text('status', { enum: cfdiDuplicateStamps.status.enumValues }).notNull(),
    detail: text('detail'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('retencion_duplicate_stamps_retencion_idx').on(t.retencionId), uniqueIndex('retencion_duplicate_stamps_uuid_unique').on(t.uuid)],
);

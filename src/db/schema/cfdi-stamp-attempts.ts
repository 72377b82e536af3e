import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';
import { cfdis } from './cfdis.ts';

/**
 * Every stamping attempt of a live CFDI, by any instance: which PAC, and what it answered (`sent` is written before a
 * request leaves, so an attempt cut short still keeps the document with that PAC). The failover router decides from it.
 */
export const cfdiStampAttempts = sqliteTable(
  'cfdi_stamp_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    cfdiId: text('cfdi_id')
      .notNull()
      .references(() => cfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    pac: text('pac').notNull(),
    outcome: text('outcome', { enum: ['sent', 'stamped', 'definitive', 'duplicate', 'provider', 'ambiguous'] }).notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('cfdi_stamp_attempts_cfdi_idx').on(t.cfdiId, t.id)],
);

/**
 * A second stamp of one document by another PAC (a late answer after failover): the UUID first answered stays, this one
 * is cancelled at its PAC with motivo 02 and reported (cfdi.duplicate_stamp_cancelled).
 */
export const cfdiDuplicateStamps = sqliteTable(
  'cfdi_duplicate_stamps',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    cfdiId: text('cfdi_id')
      .notNull()
      .references(() => cfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    pac: text('pac').notNull(),
    uuid: text('uuid').notNull(),
    status: text('status', { enum: ['cancelling', 'cancelled', 'failed'] }).notNull(),
    detail: text('detail'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('cfdi_duplicate_stamps_cfdi_idx').on(t.cfdiId), uniqueIndex('cfdi_duplicate_stamps_uuid_unique').on(t.uuid)],
);

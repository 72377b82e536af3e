import { sql } from 'drizzle-orm';
import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';
import { cfdis } from './cfdis.ts';
import { tenants } from './tenants.ts';

export const CANCELLATION_STATUSES = ['en_proceso', 'cancelado', 'rechazado', 'fallido'] as const;
export type CancellationStatus = (typeof CANCELLATION_STATUSES)[number];

/**
 * One row per cancellation request sent for a CFDI (a rejected or failed one may be followed by another). At most
 * one is `en_proceso` per CFDI. The signed request and SAT's acknowledgement (acuse) are kept byte for byte.
 */
export const cfdiCancellations = sqliteTable(
  'cfdi_cancellations',
  {
    id: text('id').primaryKey(),
    cfdiId: text('cfdi_id')
      .notNull()
      .references(() => cfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    uuid: text('uuid').notNull(),
    motivo: text('motivo').notNull(),
    folioSustitucion: text('folio_sustitucion'),
    status: text('status', { enum: CANCELLATION_STATUSES }).notNull(),
    requiresAcceptance: integer('requires_acceptance', { mode: 'boolean' }).notNull(),
    /** SAT's words for where the request stands (EstatusCancelacion), as last reported. */
    estatusCancelacion: text('estatus_cancelacion'),
    /** SAT's Estado of the CFDI as last reported (Vigente / Cancelado). */
    estado: text('estado'),
    /** Why it was rejected or failed. */
    reason: text('reason'),
    /** Test mode only: the X-Sandbox-Scenario the request was sent with, so a re-send keeps it. */
    sandboxScenario: text('sandbox_scenario'),
    requestXml: blob('request_xml', { mode: 'buffer' }).notNull(),
    acuseXml: blob('acuse_xml', { mode: 'buffer' }),
    requestedAt: text('requested_at').notNull(),
    resolvedAt: text('resolved_at'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('cfdi_cancellations_cfdi_idx').on(t.cfdiId, t.id), uniqueIndex('cfdi_cancellations_active').on(t.cfdiId).where(sql`status = 'en_proceso'`)],
);

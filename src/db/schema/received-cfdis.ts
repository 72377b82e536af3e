import { sql } from 'drizzle-orm';
import { blob, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

export const RECEIVED_VALIDATIONS = ['validated', 'invalid', 'not_validated'] as const;
export type ReceivedValidationResult = (typeof RECEIVED_VALIDATIONS)[number];
export const RECEIVED_SOURCES = ['upload', 'sat_download'] as const;
export const RECEIVED_SAT_STATUSES = ['vigente', 'cancelado', 'no_encontrado'] as const;
export const EFOS_69B_STATES = ['presunto', 'definitivo', 'desvirtuado', 'sentencia_favorable'] as const;
export const RECONCILIATION_STATES = ['sin_pago', 'parcial', 'completo', 'exceso'] as const;

/** One named check of the validation (src/cfdi/received/validate.ts), as the record keeps it. */
export interface ReceivedCheckRow {
  name: string;
  ok: boolean;
  detail?: string;
}

/**
 * A CFDI someone issued to the tenant (issue 39): the original bytes exactly as received, what validation found
 * (each named check), the facts lists filter on, where it came from. The columns after `satDownloadId` belong to
 * later steps (SAT status refresh, Lista 69-B, reconciliation) and stay null until those fill them.
 */
export const receivedCfdis = sqliteTable(
  'received_cfdis',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    /** The TFD's UUID, upper case; null for a document that has none (not well-formed, not stamped). */
    uuid: text('uuid'),
    /** Hex SHA-256 of `xml`: tells a re-upload of the same bytes from another document with the same UUID. */
    sha256: text('sha256').notNull(),
    xml: blob('xml', { mode: 'buffer' }).notNull(),
    /** `4.0`, `3.3` or `unknown`. */
    version: text('version').notNull(),
    validation: text('validation', { enum: RECEIVED_VALIDATIONS }).notNull(),
    checks: text('checks', { mode: 'json' }).notNull().$type<ReceivedCheckRow[]>(),
    emisorRfc: text('emisor_rfc'),
    emisorNombre: text('emisor_nombre'),
    receptorRfc: text('receptor_rfc'),
    fecha: text('fecha'),
    tipo: text('tipo'),
    metodoPago: text('metodo_pago'),
    formaPago: text('forma_pago'),
    moneda: text('moneda'),
    /** The exact decimal as written in the document. */
    total: text('total'),
    serie: text('serie'),
    folio: text('folio'),
    source: text('source', { enum: RECEIVED_SOURCES }).notNull(),
    satDownloadId: text('sat_download_id'),
    // Filled by the SAT status refresh (ConsultaCFDIService).
    satStatus: text('sat_status', { enum: RECEIVED_SAT_STATUSES }),
    esCancelable: text('es_cancelable'),
    estatusCancelacion: text('estatus_cancelacion'),
    validacionEfos: text('validacion_efos'),
    satCheckedAt: text('sat_checked_at'),
    // Filled from SAT's Lista 69-B.
    efos69b: text('efos_69b', { enum: EFOS_69B_STATES }),
    // Filled by reconciliation, only for a PPD Ingreso.
    reconciliation: text('reconciliation', { enum: RECONCILIATION_STATES }),
    amountPaid: text('amount_paid'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('received_cfdis_uuid_unique').on(t.tenantId, t.environment, t.uuid).where(sql`uuid is not null`),
    index('received_cfdis_tenant_idx').on(t.tenantId, t.environment, t.id),
    index('received_cfdis_emisor_idx').on(t.tenantId, t.environment, t.emisorRfc, t.id),
    index('received_cfdis_fecha_idx').on(t.tenantId, t.environment, t.fecha),
    index('received_cfdis_validation_idx').on(t.tenantId, t.environment, t.validation, t.id),
    index('received_cfdis_sat_status_idx').on(t.tenantId, t.environment, t.satStatus, t.id),
    index('received_cfdis_efos_idx').on(t.tenantId, t.environment, t.efos69b, t.id),
    index('received_cfdis_reconciliation_idx').on(t.tenantId, t.environment, t.reconciliation, t.id),
  ],
);

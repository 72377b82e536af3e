import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/**
 * A CFDI as SAT's Descarga Masiva metadata lists it (the 12 columns of a metadata package), one per UUID per tenant and
 * environment; a later listing updates it (a cancellation shows up as estatus 0 with its fecha_cancelacion).
 */
export const satMetadata = sqliteTable(
  'sat_metadata',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    uuid: text('uuid').notNull(),
    rfcEmisor: text('rfc_emisor').notNull(),
    nombreEmisor: text('nombre_emisor').notNull(),
    rfcReceptor: text('rfc_receptor').notNull(),
    nombreReceptor: text('nombre_receptor').notNull(),
    rfcPac: text('rfc_pac').notNull(),
    fechaEmision: text('fecha_emision').notNull(),
    fechaCertificacionSat: text('fecha_certificacion_sat').notNull(),
    monto: text('monto').notNull(),
    efectoComprobante: text('efecto_comprobante').notNull(),
    /** SAT's Estatus: '1' vigente, '0' cancelado. */
    estatus: text('estatus').notNull(),
    fechaCancelacion: text('fecha_cancelacion'),
    /** The download that listed it last. */
    satDownloadId: text('sat_download_id').notNull(),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [uniqueIndex('sat_metadata_uuid_unique').on(t.tenantId, t.environment, t.uuid)],
);

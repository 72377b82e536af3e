import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

export const CFDI_STATUSES = ['vigente', 'en_cola', 'fallido', 'cancelacion_pendiente', 'cancelado'] as const;
export type CfdiStatus = (typeof CFDI_STATUSES)[number];

/** One row per invoice: what lists, filters and statistics need. The document itself is in cfdi_documents. */
export const cfdis = sqliteTable(
  'cfdis',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    uuid: text('uuid'),
    tipo: text('tipo').notNull(),
    status: text('status', { enum: CFDI_STATUSES }).notNull(),
    serie: text('serie'),
    folio: integer('folio'),
    fecha: text('fecha').notNull(),
    fechaTimbrado: text('fecha_timbrado'),
    receptorRfc: text('receptor_rfc').notNull(),
    receptorNombre: text('receptor_nombre').notNull(),
    moneda: text('moneda').notNull(),
    subtotal: text('subtotal').notNull(),
    total: text('total').notNull(),
    /** The API response body fields that are not columns (emisor, conceptos summary, TFD values). */
    summary: text('summary', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    /** The integrator's own reference (its order number): unique per tenant and environment when given. */
    externalId: text('external_id'),
    /** The integrator's string key → string value pairs, echoed in the invoice's webhook events. */
    metadata: text('metadata', { mode: 'json' }).notNull().default({}).$type<Record<string, string>>(),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('cfdis_uuid_unique').on(t.uuid),
    uniqueIndex('cfdis_folio_unique').on(t.tenantId, t.environment, t.serie, t.folio),
    uniqueIndex('cfdis_external_id_unique').on(t.tenantId, t.environment, t.externalId).where(sql`external_id is not null`),
    index('cfdis_tenant_idx').on(t.tenantId, t.environment, t.id),
    index('cfdis_tenant_receptor_idx').on(t.tenantId, t.environment, t.receptorRfc, t.id),
  ],
);

import { sql } from 'drizzle-orm';
import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, tenants } from './identity.ts';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

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

/** The XML exactly as stamped (bytes), apart from the row so list scans stay small. */
export const cfdiDocuments = sqliteTable('cfdi_documents', {
  cfdiId: text('cfdi_id').primaryKey().references(() => cfdis.id, { onDelete: 'cascade' }),
  tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  xml: blob('xml', { mode: 'buffer' }).notNull(),
});

/** Idempotency-Key records: claimed before the request runs, then the first response is replayed for 24 h. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    /** The credential that sent the key and its role (`user:usr_…:ADMIN`): only it gets the stored answer back. */
    actor: text('actor').notNull().default(''),
    key: text('key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    requestHash: text('request_hash').notNull(),
    /** 0 while the first request runs (or if its process died); then the status it was answered with. */
    status: integer('status').notNull(),
    /** What the first request created, bound in the same transaction as the creation: a retry after a crash answers from it. */
    resourceId: text('resource_id'),
    headers: text('headers', { mode: 'json' }).notNull().$type<Record<string, string>>(),
    /** Sealed with the master key (it may hold a secret shown once: an API key, a webhook secret). */
    body: blob('body', { mode: 'buffer' }).notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [uniqueIndex('idempotency_actor_unique').on(t.tenantId, t.environment, t.actor, t.key), index('idempotency_created_idx').on(t.createdAt)],
);

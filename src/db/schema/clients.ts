import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, tenants } from './identity.ts';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

/** The tenant's customers: receptor data reused by invoices (receptor_id). Not unique by RFC (generic RFCs repeat). */
export const clients = sqliteTable(
  'clients',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    rfc: text('rfc').notNull(),
    nombre: text('nombre').notNull(),
    /** nombre upper-cased without diacritics, for case- and accent-insensitive search. */
    nombreSearch: text('nombre_search').notNull(),
    regimenFiscal: text('regimen_fiscal').notNull(),
    domicilioFiscal: text('domicilio_fiscal').notNull(),
    usoCfdi: text('uso_cfdi').notNull(),
    email: text('email'),
    residenciaFiscal: text('residencia_fiscal'),
    numRegIdTrib: text('num_reg_id_trib'),
    /** The integrator's string key → string value pairs (not copied into invoices). */
    metadata: text('metadata', { mode: 'json' }).notNull().default({}).$type<Record<string, string>>(),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    index('clients_tenant_idx').on(t.tenantId, t.environment, t.id),
    index('clients_tenant_rfc_idx').on(t.tenantId, t.environment, t.rfc),
  ],
);

/**
 * Invoice series and their folio counters. `next_folio` is consumed by an atomic UPDATE … RETURNING inside the
 * invoice's transaction. At most one default per tenant and environment (partial unique index).
 */
export const series = sqliteTable(
  'series',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    serie: text('serie').notNull(),
    nextFolio: integer('next_folio').notNull().default(1),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    descripcion: text('descripcion'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('series_serie_unique').on(t.tenantId, t.environment, t.serie),
    uniqueIndex('series_default_unique').on(t.tenantId, t.environment).where(sql`is_default = 1`),
    index('series_tenant_idx').on(t.tenantId, t.environment, t.id),
  ],
);

import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/** The tenant's customers: receptor data reused by invoices (receptor_id). Not unique by RFC (generic RFCs repeat). */
export const clients = sqliteTable(
  'clients',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
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
  (t) => [index('clients_tenant_idx').on(t.tenantId, t.environment, t.id), index('clients_tenant_rfc_idx').on(t.tenantId, t.environment, t.rfc)],
);

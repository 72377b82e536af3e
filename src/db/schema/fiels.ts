import { blob, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { now } from './columns.ts';
import { tenants } from './tenants.ts';

/**
 * The tenant's FIEL (e.firma), at most one per tenant and none per environment: it is the taxpayer's, as its RFC is
 * (docs/decisions.md, "FIEL custody"). The private key is stored only encrypted under the master key; the password never.
 * Deleting it deletes the row.
 */
export const fiels = sqliteTable(
  'fiels',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    rfc: text('rfc').notNull(),
    serialNumber: text('serial_number').notNull(),
    name: text('name').notNull(),
    validFrom: text('valid_from').notNull(),
    validTo: text('valid_to').notNull(),
    certificateDer: blob('certificate_der', { mode: 'buffer' }).notNull(),
    /** AES-256-GCM(master key, unencrypted PKCS#8 DER), bound to the row id. */
    privateKeySealed: blob('private_key_sealed', { mode: 'buffer' }).notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [uniqueIndex('fiels_tenant_unique').on(t.tenantId)],
);

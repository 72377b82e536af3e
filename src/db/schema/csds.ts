import { blob, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

export const CSD_STATUSES = ['active', 'inactive', 'expired'] as const;
export type CsdStatus = (typeof CSD_STATUSES)[number];

/** Seal certificates. The private key is stored only encrypted under the master key; the password never. */
export const csds = sqliteTable(
  'csds',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    rfc: text('rfc').notNull(),
    serialNumber: text('serial_number').notNull(),
    name: text('name').notNull(),
    validFrom: text('valid_from').notNull(),
    validTo: text('valid_to').notNull(),
    status: text('status', { enum: CSD_STATUSES }).notNull(),
    certificateDer: blob('certificate_der', { mode: 'buffer' }).notNull(),
    /** AES-256-GCM(master key, unencrypted PKCS#8 DER), bound to the row id. */
    privateKeySealed: blob('private_key_sealed', { mode: 'buffer' }).notNull(),
    expiryNoticeAt: text('expiry_notice_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('csds_serial_unique').on(t.tenantId, t.environment, t.serialNumber),
    index('csds_tenant_idx').on(t.tenantId, t.environment, t.id),
    index('csds_valid_to_idx').on(t.status, t.validTo),
  ],
);

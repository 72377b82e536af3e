import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, timestamps } from './columns.ts';
import { tenants } from './tenants.ts';

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    name: text('name').notNull(),
    /** SHA-256 (hex) of the whole secret; the secret itself is never stored. */
    keyHash: text('key_hash').notNull(),
    /** First characters of the secret, to recognise a key in a list. */
    prefix: text('prefix').notNull(),
    createdBy: text('created_by'),
    lastUsedAt: text('last_used_at'),
    revokedAt: text('revoked_at'),
    ...timestamps,
  },
  (t) => [uniqueIndex('api_keys_hash_unique').on(t.keyHash), index('api_keys_tenant_idx').on(t.tenantId, t.id)],
);

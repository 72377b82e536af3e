import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './columns.ts';
import { tenants } from './tenants.ts';

export const ROLES = ['ADMIN', 'OPERATOR', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    nombre: text('nombre').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    /** Bumped on password change and deletion: access tokens carry it, so old ones stop working at once. */
    tokenVersion: integer('token_version').notNull().default(0),
    lastLoginAt: text('last_login_at'),
    ...timestamps,
  },
  // An email is unique within a tenant only: the same person may belong to several tenants, and no sign-up reveals
  // that an email is used elsewhere. Login takes the oldest unless the request names the tenant.
  (t) => [
    uniqueIndex('users_tenant_email_unique').on(t.tenantId, t.email),
    index('users_email_idx').on(t.email, t.createdAt),
    index('users_tenant_idx').on(t.tenantId, t.id),
  ],
);

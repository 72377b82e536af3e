import { sql } from 'drizzle-orm';
import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { PLANS } from '../../lib/plans.ts';

const timestamps = {
  createdAt: text('created_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  updatedAt: text('updated_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
};

export const ROLES = ['ADMIN', 'OPERATOR', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];
export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The issuer. Its own id is the tenant id; it owns every other row. */
export const tenants = sqliteTable('tenants', {
  id: text('id').primaryKey(),
  rfc: text('rfc').notNull(),
  nombre: text('nombre').notNull(),
  regimenFiscal: text('regimen_fiscal').notNull(),
  codigoPostal: text('codigo_postal').notNull(),
  plan: text('plan', { enum: PLANS }).notNull().default('starter'),
  /** Per-minute request limit; only read for the enterprise plan. */
  rateLimitPerMinute: integer('rate_limit_per_minute'),
  ...timestamps,
});

export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;

/** What the printed invoice shows of the tenant's brand. Apart from `tenants`, whose rows are cached per request. */
export const tenantBranding = sqliteTable('tenant_branding', {
  tenantId: text('tenant_id').primaryKey().references(() => tenants.id, { onDelete: 'cascade' }),
  logo: blob('logo', { mode: 'buffer' }),
  logoType: text('logo_type', { enum: LOGO_TYPES }),
  /** #RRGGBB */
  accentColor: text('accent_color'),
  updatedAt: text('updated_at').notNull(),
});

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
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
  (t) => [uniqueIndex('users_tenant_email_unique').on(t.tenantId, t.email), index('users_email_idx').on(t.email, t.createdAt), index('users_tenant_idx').on(t.tenantId, t.id)],
);

/**
 * Failed logins per (email, client address), counted before the password is verified. Keyed by the email's SHA-256,
 * whether or not a user has it, so a refusal never tells an unknown email from a known one.
 */
export const loginFailures = sqliteTable(
  'login_failures',
  {
    /** sha256(email) + '|' + client address */
    key: text('key').primaryKey(),
    failures: integer('failures').notNull(),
    /** Set from the limit on, doubling with each further failure: this address waits; others do not. */
    blockedUntil: text('blocked_until'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('login_failures_updated_idx').on(t.updatedAt)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
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

export const refreshTokens = sqliteTable(
  'refresh_tokens',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** All tokens rotated from one login share a family; reuse of a rotated token revokes the family. */
    familyId: text('family_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: text('expires_at').notNull(),
    rotatedAt: text('rotated_at'),
    revokedAt: text('revoked_at'),
    createdAt: timestamps.createdAt,
  },
  (t) => [uniqueIndex('refresh_tokens_hash_unique').on(t.tokenHash), index('refresh_tokens_family_idx').on(t.familyId)],
);

import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { apiKeys, users } from '../db/schema/index.ts';
import type { IdentityDirectory } from '../lib/identity.ts';
import { rateLimitOf } from '../lib/plans.ts';
import { findTenant } from './tenants/lookup.ts';
import type { AccessTokens } from './tokens.ts';

/** The auth backend's answer to "who is this": what the gateway and the invoice backend get instead of its tables. */
export function createIdentityDirectory(db: Db, accessTokens: AccessTokens, now: () => Date): IdentityDirectory {
  // Single-table lookups (the tenant's plan comes from its cache): measured cheaper than a join.
  const keyByHash = db
    .select({ id: apiKeys.id, tenantId: apiKeys.tenantId, environment: apiKeys.environment, revokedAt: apiKeys.revokedAt, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .prepare();
  const userById = db
    .select({ id: users.id, tenantId: users.tenantId, role: users.role, tokenVersion: users.tokenVersion })
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare();
  const touchKey = db
    .update(apiKeys)
    .set({ lastUsedAt: sql`${sql.placeholder('at')}` })
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare();

  return {
    verifyAccessToken: (token) => accessTokens.verify(token, now()),
    apiKeyByHash: async (hash) => (await keyByHash.execute({ hash }))[0],
    markApiKeyUsed: async (id, at) => {
      await touchKey.execute({ id, at });
    },
    userById: async (id) => (await userById.execute({ id }))[0],
    userEmails: async (tenantId) => (await db.select({ email: users.email }).from(users).where(eq(users.tenantId, tenantId))).map((u) => u.email.toLowerCase()),
    tenantById: (id) => findTenant(db, id, now().getTime()),
    planLimit: async (tenantId) => {
      const tenant = await findTenant(db, tenantId, now().getTime());
      return tenant && rateLimitOf(tenant);
    },
    members: async (tenantId, environment) => {
      const roles = await db.select({ role: users.role, n: count() }).from(users).where(eq(users.tenantId, tenantId)).groupBy(users.role);
      const [keys] = await db
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.environment, environment), isNull(apiKeys.revokedAt)));
      return { usersByRole: Object.fromEntries(roles.map((r) => [r.role, r.n])), activeApiKeys: keys?.n ?? 0 };
    },
  };
}

import { eq, sql } from 'drizzle-orm';
import type { AccessTokens } from '../auth/tokens.ts';
import { rateLimitOf } from '../auth/tenants/schemas.ts';
import type { Db } from '../db/client.ts';
import { apiKeys, users, type Environment } from '../db/schema/index.ts';
import { findTenant } from '../auth/tenants/lookup.ts';
import type { Actor } from '../lib/backend.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { ApiError, unauthorized } from '../lib/errors.ts';
import type { CredentialCache } from './credential-cache.ts';

export interface Principal {
  actor: Actor;
  /** Requests per minute allowed by the tenant's plan. */
  limit: number;
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Turns `Authorization: Bearer …` into the calling actor: an API key (sk_test_/sk_live_, looked up by SHA-256)
 * or a JWT (verified, then checked against the user row so deleted users and changed passwords end sessions).
 */
export function createAuthenticator(db: Db, accessTokens: AccessTokens, now: () => Date, cache: CredentialCache) {
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
  const limitOf = async (tenantId: string) => {
    const t = await findTenant(db, tenantId, now().getTime());
    if (!t) throw unauthorized('Invalid credential');
    return rateLimitOf(t);
  };
  const touchKey = db.update(apiKeys).set({ lastUsedAt: sql`${sql.placeholder('at')}` }).where(eq(apiKeys.id, sql.placeholder('id'))).prepare();

  return async function authenticate(authorization: string | undefined, environmentHeader: string | undefined): Promise<Principal> {
    if (!authorization) throw unauthorized('Missing credential: send Authorization: Bearer <token>');
    const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized('Malformed Authorization header: expected "Bearer <token>"');
    const token = match[1]!;

    const nowMs = now().getTime();
    if (token.startsWith('sk_test_') || token.startsWith('sk_live_')) {
      const hash = sha256Hex(token);
      const cached = cache.get(hash, nowMs);
      if (cached) return cached;
      const [key] = await keyByHash.execute({ hash });
      if (!key) throw unauthorized('Invalid API key');
      if (key.revokedAt) throw unauthorized('API key revoked');
      if (!key.lastUsedAt || nowMs - Date.parse(key.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
        await touchKey.execute({ id: key.id, at: new Date(nowMs).toISOString() });
      }
      const principal: Principal = {
        actor: { type: 'api_key', id: key.id, role: 'ADMIN', tenantId: key.tenantId, environment: key.environment },
        limit: await limitOf(key.tenantId),
      };
      cache.set(hash, principal, nowMs);
      return principal;
    }

    // The environment is per request for a JWT, so it is not part of the cached principal.
    const environment = environmentOf(environmentHeader);
    const cached = cache.get(token, nowMs);
    if (cached) return { ...cached, actor: { ...cached.actor, environment } };
    const claims = await accessTokens.verify(token, now());
    const [user] = await userById.execute({ id: claims.sub });
    if (!user || user.tenantId !== claims.tid || user.tokenVersion !== claims.ver) throw unauthorized('Access token revoked');
    const principal: Principal = {
      actor: { type: 'user', id: user.id, role: user.role, tenantId: user.tenantId, environment: 'test' },
      limit: await limitOf(user.tenantId),
    };
    cache.set(token, principal, nowMs, claims.exp! * 1000);
    return { ...principal, actor: { ...principal.actor, environment } };
  };
}

/** A JWT acts on test data unless the request asks for live with X-Environment. */
function environmentOf(header: string | undefined): Environment {
  if (header === undefined || header === 'test') return 'test';
  if (header === 'live') return 'live';
  throw new ApiError(400, 'Invalid X-Environment header', [{ field: 'x-environment', issue: 'must be "test" or "live"' }]);
}

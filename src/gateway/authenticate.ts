import { eq, sql } from 'drizzle-orm';
import type { AccessTokens } from '../auth/tokens.ts';
import { rateLimitOf } from '../auth/tenants/schemas.ts';
import type { Db } from '../db/client.ts';
import { apiKeys, tenants, users, type Environment } from '../db/schema/index.ts';
import type { Actor } from '../lib/backend.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { ApiError, unauthorized } from '../lib/errors.ts';

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
export function createAuthenticator(db: Db, accessTokens: AccessTokens, now: () => Date) {
  const keyByHash = db
    .select({
      id: apiKeys.id,
      tenantId: apiKeys.tenantId,
      environment: apiKeys.environment,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
      plan: tenants.plan,
      rateLimitPerMinute: tenants.rateLimitPerMinute,
    })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .prepare();
  const userById = db
    .select({
      id: users.id,
      tenantId: users.tenantId,
      role: users.role,
      tokenVersion: users.tokenVersion,
      plan: tenants.plan,
      rateLimitPerMinute: tenants.rateLimitPerMinute,
    })
    .from(users)
    .innerJoin(tenants, eq(tenants.id, users.tenantId))
    .where(eq(users.id, sql.placeholder('id')))
    .prepare();
  const touchKey = db.update(apiKeys).set({ lastUsedAt: sql.placeholder('at') as unknown as string }).where(eq(apiKeys.id, sql.placeholder('id'))).prepare();

  return async function authenticate(authorization: string | undefined, environmentHeader: string | undefined): Promise<Principal> {
    if (!authorization) throw unauthorized('Missing credential: send Authorization: Bearer <token>');
    const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized('Malformed Authorization header: expected "Bearer <token>"');
    const token = match[1]!;

    if (token.startsWith('sk_test_') || token.startsWith('sk_live_')) {
      const key = keyByHash.get({ hash: sha256Hex(token) });
      if (!key) throw unauthorized('Invalid API key');
      if (key.revokedAt) throw unauthorized('API key revoked');
      const nowMs = now().getTime();
      if (!key.lastUsedAt || nowMs - Date.parse(key.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
        touchKey.run({ id: key.id, at: new Date(nowMs).toISOString() });
      }
      return {
        actor: { type: 'api_key', id: key.id, role: 'ADMIN', tenantId: key.tenantId, environment: key.environment },
        limit: rateLimitOf(key),
      };
    }

    const claims = await accessTokens.verify(token, now());
    const user = userById.get({ id: claims.sub });
    if (!user || user.tenantId !== claims.tid || user.tokenVersion !== claims.ver) throw unauthorized('Access token revoked');
    return {
      actor: { type: 'user', id: user.id, role: user.role, tenantId: user.tenantId, environment: environmentOf(environmentHeader) },
      limit: rateLimitOf(user),
    };
  };
}

/** A JWT acts on test data unless the request asks for live with X-Environment. */
function environmentOf(header: string | undefined): Environment {
  if (header === undefined || header === 'test') return 'test';
  if (header === 'live') return 'live';
  throw new ApiError(400, 'Invalid X-Environment header', [{ field: 'x-environment', issue: 'must be "test" or "live"' }]);
}

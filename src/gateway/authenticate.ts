import type { Environment } from '../db/schema/index.ts';
import type { Actor } from '../lib/backend.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { ServiceError, unauthenticated } from '../lib/service-error.ts';
import type { IdentityDirectory } from '../lib/identity.ts';
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
export function createAuthenticator(identity: IdentityDirectory, now: () => Date, cache: CredentialCache) {
  const limitOf = async (tenantId: string) => {
    const limit = await identity.planLimit(tenantId);
    if (limit === undefined) throw unauthenticated('Invalid credential');
    return limit;
  };

  const resolveApiKey = async (hash: string, nowMs: number): Promise<Principal> => {
    const readAt = cache.generation;
    const key = await identity.apiKeyByHash(hash);
    if (!key) throw unauthenticated('Invalid API key');
    if (key.revokedAt) throw unauthenticated('API key revoked');
    if (!key.lastUsedAt || nowMs - Date.parse(key.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
      await identity.markApiKeyUsed(key.id, new Date(nowMs).toISOString());
    }
    const principal: Principal = {
      actor: { type: 'api_key', id: key.id, role: 'ADMIN', tenantId: key.tenantId, environment: key.environment },
      limit: await limitOf(key.tenantId),
    };
    cache.set(hash, principal, nowMs, readAt);
    return principal;
  };

  const resolveAccessToken = async (token: string, environment: Environment, nowMs: number): Promise<Principal> => {
    const readAt = cache.generation;
    const claims = await identity.verifyAccessToken(token);
    const user = await identity.userById(claims.sub);
    if (!user || user.tenantId !== claims.tid || user.tokenVersion !== claims.ver) throw unauthenticated('Access token revoked');
    const principal: Principal = {
      actor: { type: 'user', id: user.id, role: user.role, tenantId: user.tenantId, environment: 'test' },
      limit: await limitOf(user.tenantId),
    };
    cache.set(token, principal, nowMs, readAt, claims.exp! * 1000);
    return { ...principal, actor: { ...principal.actor, environment } };
  };

  /**
   * A credential in the cache is answered at once, not as a promise (most requests: a promise per request costs);
   * one to resolve is a promise. A refusal is thrown either way.
   */
  return function authenticate(authorization: string | undefined, environmentHeader: string | undefined): Principal | Promise<Principal> {
    if (!authorization) throw unauthenticated('Missing credential: send Authorization: Bearer <token>');
    const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthenticated('Malformed Authorization header: expected "Bearer <token>"');
    const token = match[1]!;

    const nowMs = now().getTime();
    if (token.startsWith('sk_test_') || token.startsWith('sk_live_')) {
      const hash = sha256Hex(token);
      return cache.get(hash, nowMs) ?? resolveApiKey(hash, nowMs);
    }

    // The environment is per request for a JWT, so it is not part of the cached principal.
    const environment = environmentOf(environmentHeader);
    const cached = cache.get(token, nowMs);
    if (cached) return { ...cached, actor: { ...cached.actor, environment } };
    return resolveAccessToken(token, environment, nowMs);
  };
}

/** A JWT acts on test data unless the request asks for live with X-Environment. */
function environmentOf(header: string | undefined): Environment {
  if (header === undefined || header === 'test') return 'test';
  if (header === 'live') return 'live';
  throw new ServiceError('invalid_header', 'Invalid X-Environment header', [{ field: 'x-environment', issue: 'must be "test" or "live"' }]);
}

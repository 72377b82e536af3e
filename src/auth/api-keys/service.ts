import { and, asc, count, eq, gt, isNull } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { apiKeys } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { conflict, notFound } from '../../lib/service-error.ts';
import { newId } from '../../lib/ids.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import type { AuthDeps } from '../deps.ts';
import { toApiKey, type ApiKeyCreateSchema } from './schemas.ts';
import { withTransaction } from '../../db/index.ts';

/** Active keys per tenant and environment: each has its own rate-limit window, and forgotten keys are leaks waiting. */
const MAX_ACTIVE_API_KEYS = 20;

/** The secret (256 random bits) is returned once; only its SHA-256 is kept. */
export async function createApiKey(deps: AuthDeps, actor: Actor, input: z.infer<typeof ApiKeyCreateSchema>, bindIdempotency?: IdempotencyClaim['bind']) {
  const key = `sk_${input.environment}_${randomToken(32)}`;
  const now = deps.now().toISOString();
  const row = {
    id: newId('ak'),
    tenantId: actor.tenantId,
    environment: input.environment,
    name: input.name,
    keyHash: sha256Hex(key),
    prefix: key.slice(0, 12),
    createdBy: actor.id,
    createdAt: now,
    updatedAt: now,
  };
  // Counted in the insert's transaction, so two concurrent creations cannot both take the last place.
  // serializable: the count of active keys decides the insert (two creations never both take the last place)
  await withTransaction(deps.db, { isolation: 'serializable', name: 'apiKeys.create' }, async (tx) => {
    const active = (
      await tx
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.tenantId, actor.tenantId), eq(apiKeys.environment, input.environment), isNull(apiKeys.revokedAt)))
    )[0]!.n;
    if (active >= MAX_ACTIVE_API_KEYS) {
      throw conflict('Too many active API keys', [
        {
          field: 'environment',
          issue: `the tenant already has ${active} active ${input.environment} keys, the limit is ${MAX_ACTIVE_API_KEYS}: revoke one first`,
        },
      ]);
    }
    await tx.insert(apiKeys).values(row);
    await bindIdempotency?.(tx, row.id);
  });
  return { ...toApiKey({ ...row, lastUsedAt: null, revokedAt: null }), key };
}

/**
 * A retry of a POST /api-keys whose first request died before answering: only the secret's hash was kept and its
 * answer never arrived, so the same key gets a new secret, shown in this answer (docs/decisions.md, Idempotency).
 */
export async function resumeCreateApiKey(deps: AuthDeps, actor: Actor, id: string, claim: IdempotencyClaim) {
  // serializable: the key's revocation read decides the new secret
  const [row] = await withTransaction(deps.db, { isolation: 'serializable', name: 'apiKeys.resume' }, async (tx) => {
    // A duplicate of a request still running would replace the secret that request is about to show: bind refuses
    // it (409 idempotency_key_in_use, retry later), as it refuses any request that does not hold the claim.
    if (!claim.held) await claim.bind(tx, id);
    const [found] = await tx
      .select({ environment: apiKeys.environment })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, actor.tenantId), isNull(apiKeys.revokedAt)));
    if (!found) throw notFound('API key');
    const secret = `sk_${found.environment}_${randomToken(32)}`;
    const updated = await tx
      .update(apiKeys)
      .set({ keyHash: sha256Hex(secret), prefix: secret.slice(0, 12), updatedAt: deps.now().toISOString() })
      .where(eq(apiKeys.id, id))
      .returning();
    return updated.map((r) => ({ ...toApiKey(r), key: secret }));
  });
  return row!;
}

const live = (actor: Actor) => and(eq(apiKeys.tenantId, actor.tenantId), isNull(apiKeys.revokedAt));

export async function listApiKeys(deps: AuthDeps, actor: Actor, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(apiKeys)
    .where(and(live(actor), after ? gt(apiKeys.id, after) : undefined))
    .orderBy(asc(apiKeys.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toApiKey);
}

/** Revocation takes effect on the next request: the gateway looks keys up on every call. */
export async function revokeApiKey(deps: AuthDeps, actor: Actor, id: string) {
  const now = deps.now().toISOString();
  const res = await deps.db
    .update(apiKeys)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(apiKeys.id, id), live(actor)))
    .returning({ id: apiKeys.id });
  if (res.length !== 1) throw notFound('API key');
  return { id, revoked: true as const, deleted: true as const };
}

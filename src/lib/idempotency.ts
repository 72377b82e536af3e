import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { withTransaction, type Db, type Tx } from '../db/index.ts';
import { prepared } from '../db/prepared.ts';
import { idempotencyKeys } from '../db/schema/index.ts';
import type { BackendEnv } from './backend.ts';
import { sha256Hex } from './crypto.ts';
import { conflict, ServiceError } from './service-error.ts';
import { openSecret, sealSecret } from './secret-box.ts';

const TTL_MS = 24 * 3600 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * What a route may do with the request's key: `bind` the resource it creates, inside the transaction that creates it;
 * `resumed` is that resource when an earlier request with this key created it and then its process died before
 * answering — the route answers from the resource's current state instead of creating it again.
 */
export interface IdempotencyClaim {
  bind(tx: Tx, resourceId: string): Promise<void>;
  resumed: string | undefined;
}

const PENDING = 0;

/** Prepared: it runs inside the creating transaction of every POST that carries a key. */
const bindOf = (tx: Tx) =>
  prepared(tx, 'idempotencyKeys.bind', (d) => {
    const p = sql.placeholder;
    return d
      .update(idempotencyKeys)
      .set({ resourceId: sql`${p('resourceId')}` })
      .where(
        and(
          eq(idempotencyKeys.tenantId, p('tenantId')),
          eq(idempotencyKeys.environment, p('environment')),
          eq(idempotencyKeys.actor, p('actor')),
          eq(idempotencyKeys.key, p('key')),
        ),
      )
      .prepare();
  });

/**
 * `Idempotency-Key` on POST: the first response (2xx or 4xx) to a key is stored and replayed for 24 h to the same
 * credential (API key or user), acting with the same role, in the same tenant and environment; any other caller's
 * request with that key is its own request and goes through its own checks. The stored body is sealed with the master
 * key: it may carry a secret shown once (a new API key, a webhook secret). The same key with another body is 409.
 * A request arriving while the first one with its key is still running waits for it and gets its response, so
 * concurrent retries cannot issue twice.
 *
 * The key is claimed durably (a pending row) before the route runs, so a crash cannot make a retry issue twice
 * either: a route that creates something binds it to the claim in its own transaction. A retry that finds a pending
 * claim from a process that died runs the route again when nothing was bound (nothing was created), or hands the
 * route the bound resource to answer from.
 */
export function idempotency(deps: { db: Db; now: () => Date; masterKey: Buffer }): MiddlewareHandler<BackendEnv> {
  const running = new Map<string, Promise<void>>();
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    const actor = c.get('actor');
    if (c.req.method !== 'POST' || key === undefined || !actor) return next();
    if (!KEY.test(key))
      throw new ServiceError('invalid_header', 'Invalid Idempotency-Key', [{ field: 'idempotency-key', issue: 'must be 1–255 visible ASCII characters' }]);
    const body = Buffer.from(await c.req.arrayBuffer());
    const hash = sha256Hex(`${c.req.method} ${c.req.path}\n${sha256Hex(body.toString('latin1'))}`);
    // The role is part of the credential's scope: a user whose role changed is checked again, not answered from before.
    const who = `${actor.type}:${actor.id}:${actor.role}`;
    const slot = `${actor.tenantId}|${actor.environment}|${who}|${key}`;
    const sealing = `idempotency|${slot}`;

    const scope = and(
      eq(idempotencyKeys.tenantId, actor.tenantId),
      eq(idempotencyKeys.environment, actor.environment),
      eq(idempotencyKeys.actor, who),
      eq(idempotencyKeys.key, key),
    );
    while (running.has(slot)) await running.get(slot);
    const since = new Date(deps.now().getTime() - TTL_MS).toISOString();
    let done!: () => void;
    running.set(slot, new Promise<void>((resolve) => (done = resolve)));
    let claimed = false;
    let answered = false;
    try {
      // The look-up and the claim in one transaction: two requests with one key (two processes too) never both claim.
      const stored = await withTransaction(deps.db, async (tx) => {
        const [found] = await tx
          .select()
          .from(idempotencyKeys)
          .where(and(scope, gt(idempotencyKeys.createdAt, since)))
          .limit(1);
        if (found) return found;
        await tx.delete(idempotencyKeys).where(scope); // an expired record of the same key
        await tx.insert(idempotencyKeys).values({
          tenantId: actor.tenantId,
          environment: actor.environment,
          actor: who,
          key,
          method: c.req.method,
          path: c.req.path,
          requestHash: hash,
          status: PENDING,
          headers: {},
          body: Buffer.alloc(0),
          createdAt: deps.now().toISOString(),
        });
        return undefined;
      });
      if (stored && stored.requestHash !== hash) {
        throw conflict('Idempotency-Key already used with another request', [
          { field: 'idempotency-key', issue: `was first used for ${stored.method} ${stored.path} with another body` },
        ]);
      }
      if (stored && stored.status !== PENDING) {
        return new Response(new Uint8Array(openSecret(deps.masterKey, stored.body, sealing)), {
          status: stored.status,
          headers: { ...stored.headers, 'Idempotent-Replayed': 'true' },
        });
      }
      claimed = true;
      c.set('idempotency', {
        bind: async (tx, resourceId) =>
          void (await bindOf(tx).execute({ resourceId, tenantId: actor.tenantId, environment: actor.environment, actor: who, key })),
        resumed: stored?.resourceId ?? undefined,
      });
      await next();
      if (c.res.status < 500) {
        const res = c.res.clone();
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'content-disposition', 'retry-after']) {
          const v = res.headers.get(h);
          if (v) headers[h] = v;
        }
        const bodyOut = sealSecret(deps.masterKey, Buffer.from(await res.arrayBuffer()), sealing);
        await deps.db.update(idempotencyKeys).set({ status: c.res.status, headers, body: bodyOut }).where(scope);
        answered = true;
      }
    } finally {
      // A 5xx or an exception: the claim goes unless something was bound to it (then a retry answers from that).
      try {
        if (claimed && !answered)
          await deps.db.delete(idempotencyKeys).where(and(scope, eq(idempotencyKeys.status, PENDING), isNull(idempotencyKeys.resourceId)));
      } finally {
        running.delete(slot);
        done();
      }
    }
  };
}

/** Daily: forget records past their 24 h. */
export async function purgeIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const purged = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - TTL_MS).toISOString()))
    .returning({ key: idempotencyKeys.key });
  return purged.length;
}

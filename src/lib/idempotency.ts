import { and, eq, gt, isNull, lt, lte, or, type SQL, sql } from 'drizzle-orm';
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
 * How long a claim holds without renewal: the owner renews it every third of this while its request runs, so only a
 * process that died (or stalled that long) loses it. Shorter than the wait below, so a retry reaching any instance
 * after the owner died takes the claim over within its wait instead of answering 409. On the app's clock, like `created_at`: instances must keep their
 * clocks in step (they already must for tokens); a skewed clock can only hand a claim over early, and the fencing
 * below keeps that from issuing twice.
 */
export const IDEMPOTENCY_LEASE_MS = 6_000;
/**
 * How long a request waits for another request with its key (on this instance or another) before answering from the
 * resource that request bound, or 409 `idempotency_key_in_use`: longer than the default 5 s stamping budget, so a
 * duplicate of POST /cfdis normally gets the first request's own answer.
 */
const IDEMPOTENCY_WAIT_MS = 8_000;
/** How often a waiting request looks at the claim again. */
const POLL_MS = 50;

/**
 * What a route may do with the request's key: `bind` the resource it creates, inside the transaction that creates it
 * (it throws 409 `idempotency_key_in_use`, rolling that transaction back, when this request no longer holds the
 * claim); `resumed` is that resource when an earlier request with this key created it and then died or is still
 * running — the route answers from the resource's current state instead of creating it again.
 */
export interface IdempotencyClaim {
  bind(tx: Tx, resourceId: string): Promise<void>;
  resumed: string | undefined;
  /** Whether this request holds the claim: false for a duplicate that gave up waiting on a request still running. */
  held: boolean;
}

const PENDING = 0;

const keyInUse = () =>
  new ServiceError(
    'conflict',
    'Another request with this Idempotency-Key is still running',
    [{ field: 'idempotency-key', issue: 'a request with this key is in progress: retry later to get its answer' }],
    undefined,
    'idempotency_key_in_use',
  );

/**
 * Prepared: it runs inside the creating transaction of every POST that carries a key. Fenced: only the claim's
 * current owner binds, once, so a request that lost its claim (stalled past its lease) cannot create a second resource.
 */
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
          eq(idempotencyKeys.owner, p('owner')),
          eq(idempotencyKeys.status, PENDING),
          isNull(idempotencyKeys.resourceId),
        ),
      )
      .returning({ key: idempotencyKeys.key })
      .prepare();
  });

type StoredKey = typeof idempotencyKeys.$inferSelect;

/** What the look-up found: the claim is now this request's, a stored answer, or another request's live claim. */
type Lookup = { claimed: true; resumed: string | undefined } | { claimed: false; stored: StoredKey };

/**
 * `Idempotency-Key` on POST: the first response (2xx or 4xx) to a key is stored and replayed for 24 h to the same
 * credential (API key or user), acting with the same role, in the same tenant and environment; any other caller's
 * request with that key is its own request and goes through its own checks. The stored body is sealed with the master
 * key: it may carry a secret shown once (a new API key, a webhook secret). The same key with another body is 409.
 *
 * The key is claimed durably (a pending row with this instance as owner and a lease) before the route runs, so
 * neither a crash nor several instances can make it issue twice: a route that creates something binds it to the
 * claim in its own transaction, fenced on the owner. A request finding another's live claim (this instance or
 * another) waits up to `waitMs` for its answer, then answers from the bound resource, or 409
 * `idempotency_key_in_use` when nothing is bound yet. A claim whose lease ran out (its process died) is taken over:
 * the route runs again when nothing was bound (nothing was created), or answers from the bound resource.
 */
export function idempotency(deps: {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  instanceId: string;
  waitMs?: number;
  /** Tests only (TEST_HOLD_BEFORE_ANSWER): runs after the route of a claimed request committed, before its answer is stored. */
  holdBeforeAnswer?: (path: string) => Promise<void>;
}): MiddlewareHandler<BackendEnv> {
  const owner = deps.instanceId;
  const waitMs = deps.waitMs ?? IDEMPOTENCY_WAIT_MS;
  // This instance's running requests by slot: a duplicate here waits on the promise instead of polling the database.
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
    const ours = and(scope, eq(idempotencyKeys.owner, owner), eq(idempotencyKeys.status, PENDING));
    const leaseEnd = () => new Date(deps.now().getTime() + IDEMPOTENCY_LEASE_MS).toISOString();

    // The look-up and the claim (or the take-over) in one transaction: two requests with one key, on one instance or
    // several, never both hold it. No outside effects: on PostgreSQL it may run again.
    const lookUp = () =>
      // serializable: the look-up decides the claim (the delete of an expired record must not remove one inserted meanwhile)
      withTransaction(deps.db, { isolation: 'serializable', name: 'idempotency.lookUp' }, async (tx): Promise<Lookup | undefined> => {
        const now = deps.now();
        const since = new Date(now.getTime() - TTL_MS).toISOString();
        const [found] = await tx
          .select()
          .from(idempotencyKeys)
          .where(and(scope, gt(idempotencyKeys.createdAt, since)))
          .limit(1);
        if (!found) {
          await tx.delete(idempotencyKeys).where(scope); // an expired record of the same key
          const inserted = await tx
            .insert(idempotencyKeys)
            .values({
              tenantId: actor.tenantId,
              environment: actor.environment,
              actor: who,
              key,
              method: c.req.method,
              path: c.req.path,
              requestHash: hash,
              status: PENDING,
              owner,
              leaseUntil: leaseEnd(),
              headers: {},
              body: Buffer.alloc(0),
              createdAt: now.toISOString(),
            })
            .onConflictDoNothing()
            .returning({ key: idempotencyKeys.key });
          // Another transaction inserted it meanwhile (PostgreSQL): look again.
          return inserted.length > 0 ? { claimed: true, resumed: undefined } : undefined;
        }
        const expired = found.status === PENDING && found.requestHash === hash && (found.leaseUntil === null || found.leaseUntil <= now.toISOString());
        if (!expired) return { claimed: false, stored: found };
        // Its owner died (or answered with a 5xx after binding): take it over, conditionally, so one taker wins.
        const taken = await tx
          .update(idempotencyKeys)
          .set({ owner, leaseUntil: leaseEnd() })
          .where(and(scope, eq(idempotencyKeys.status, PENDING), or(isNull(idempotencyKeys.leaseUntil), lte(idempotencyKeys.leaseUntil, now.toISOString()))))
          .returning({ resourceId: idempotencyKeys.resourceId });
        return taken[0] ? { claimed: true, resumed: taken[0].resourceId ?? undefined } : undefined;
      });

    const deadline = performance.now() + waitMs;
    let found: Lookup | undefined;
    for (;;) {
      const local = running.get(slot);
      if (local) {
        // A duplicate on this instance: wait for it here (bounded), then read what it left.
        await Promise.race([local, Bun.sleep(Math.max(0, deadline - performance.now()))]);
        if (running.has(slot) && performance.now() >= deadline) break;
        continue;
      }
      found = await lookUp();
      if (found?.claimed) break;
      if (found) {
        const stored = found.stored;
        if (stored.requestHash !== hash) {
          throw conflict('Idempotency-Key already used with another request', [
            { field: 'idempotency-key', issue: `was first used for ${stored.method} ${stored.path} with another body` },
          ]);
        }
        if (stored.status !== PENDING) {
          return new Response(new Uint8Array(openSecret(deps.masterKey, stored.body, sealing)), {
            status: stored.status,
            headers: { ...stored.headers, 'Idempotent-Replayed': 'true' },
          });
        }
      }
      if (performance.now() >= deadline) break;
      if (found) await Bun.sleep(Math.min(POLL_MS, Math.max(0, deadline - performance.now())));
    }

    if (!found?.claimed) {
      // Waited long enough for another request with this key: answer from what it bound, without storing anything.
      const resourceId = found?.stored.resourceId ?? (await currentBinding(deps.db, scope));
      if (!resourceId) throw keyInUse();
      c.set('idempotency', {
        bind: async () => {
          throw keyInUse();
        },
        resumed: resourceId,
        held: false,
      });
      return next();
    }

    let done!: () => void;
    running.set(slot, new Promise<void>((resolve) => (done = resolve)));
    // Renewed while the route runs (a slow provider), fenced on the owner: a lost claim stays lost.
    const renewal = setInterval(() => {
      deps.db
        .update(idempotencyKeys)
        .set({ leaseUntil: leaseEnd() })
        .where(ours)
        .then(
          () => undefined,
          () => undefined, // the next renewal tries again; past the lease another instance may take over, safely
        );
    }, IDEMPOTENCY_LEASE_MS / 3);
    let answered = false;
    try {
      c.set('idempotency', {
        bind: async (tx, resourceId) => {
          const bound = await bindOf(tx).execute({ resourceId, tenantId: actor.tenantId, environment: actor.environment, actor: who, key, owner });
          if (bound.length === 0) throw keyInUse();
        },
        resumed: found.resumed,
        held: true,
      });
      await next();
      if (deps.holdBeforeAnswer) await deps.holdBeforeAnswer(c.req.path);
      if (c.res.status < 500) {
        const res = c.res.clone();
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'content-disposition', 'retry-after']) {
          const v = res.headers.get(h);
          if (v) headers[h] = v;
        }
        const bodyOut = sealSecret(deps.masterKey, Buffer.from(await res.arrayBuffer()), sealing);
        // Fenced: a request that lost its claim does not overwrite the answer of the one that took it over.
        const stored = await deps.db
          .update(idempotencyKeys)
          .set({ status: c.res.status, headers, body: bodyOut, leaseUntil: null })
          .where(ours)
          .returning({ key: idempotencyKeys.key });
        answered = stored.length > 0;
      }
    } finally {
      clearInterval(renewal);
      // A 5xx or an exception: the claim goes unless something was bound to it; then its lease ends now, so a retry
      // takes it over at once and answers from what was bound.
      try {
        if (!answered) {
          await deps.db.delete(idempotencyKeys).where(and(ours, isNull(idempotencyKeys.resourceId)));
          await deps.db.update(idempotencyKeys).set({ leaseUntil: null }).where(ours);
        }
      } finally {
        running.delete(slot);
        done();
      }
    }
  };
}

/** The resource bound to a claim now (read outside any transaction: a waiter that gives up answers from it). */
async function currentBinding(db: Db, scope: SQL | undefined): Promise<string | undefined> {
  const [row] = await db.select({ resourceId: idempotencyKeys.resourceId }).from(idempotencyKeys).where(scope).limit(1);
  return row?.resourceId ?? undefined;
}

/** Daily: forget records past their 24 h. */
export async function purgeIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const purged = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - TTL_MS).toISOString()))
    .returning({ key: idempotencyKeys.key });
  return purged.length;
}

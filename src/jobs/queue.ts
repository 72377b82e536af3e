import { and, asc, desc, eq, gt, inArray, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { jobs, type Environment, type JobStatus } from '../db/schema/index.ts';
import { newId } from '../lib/ids.ts';
import { prepared } from '../db/prepared.ts';
import { withTransaction, type Tx, type DbOrTx } from '../db/index.ts';
import { jobQueries, type Lease } from './queries.ts';

export type Job = typeof jobs.$inferSelect;

const p = sql.placeholder;

/** Thrown by a handler for a failure that retrying cannot fix (a PAC rejection): the job ends as failed. */
export class PermanentJobError extends Error {}
/**
 * Nothing could be attempted, and the handler knows when it can be (a PAC's circuit reopens): retried then, not after
 * its backoff, and without using up one of the job's attempts (an outage of hours skipped by a circuit breaker must
 * not exhaust them); the deadline still ends it.
 */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly at: Date,
  ) {
    super(message);
  }
}

export interface EnqueueOptions {
  type: string;
  payload: Record<string, unknown>;
  tenantId?: string;
  environment?: Environment;
  /** See `jobs.lane`: the worker runs at most its lane cap of these at once. */
  lane?: string;
  runAt?: Date;
  deadline?: Date;
  maxAttempts?: number;
  /**
   * False: no other instance is told (PostgreSQL's NOTIFY). For a job that is only a safety net, due after work this
   * process is doing anyway (a stamp after the synchronous attempt's budget): the scheduler's tick finds it if it
   * ever comes due, and a NOTIFY for every invoice would wake every instance and queue every commit on the server's
   * one notification lock.
   */
  notify?: boolean;
}

/** Call inside the transaction that makes the change needing the work, so the two commit together. */
export async function enqueue(tx: DbOrTx, now: Date, o: EnqueueOptions): Promise<string> {
  const id = newId('job', now.getTime());
  const stamp = now.toISOString();
  // Prepared: every invoice and every webhook delivery enqueues.
  const insert = prepared(tx, 'jobs.insert', (d) =>
    d
      .insert(jobs)
      .values({
        id: p('id'),
        tenantId: p('tenantId'),
        environment: p('environment'),
        type: p('type'),
        lane: p('lane'),
        payload: p('payload'),
        status: 'queued',
        runAt: p('runAt'),
        deadline: p('deadline'),
        maxAttempts: p('maxAttempts'),
        createdAt: p('now'),
        updatedAt: p('now'),
      })
      .prepare(),
  );
  await insert.execute({
    id,
    tenantId: o.tenantId ?? null,
    environment: o.environment ?? null,
    type: o.type,
    lane: o.lane ?? null,
    payload: o.payload,
    runAt: (o.runAt ?? now).toISOString(),
    deadline: o.deadline?.toISOString() ?? null,
    maxAttempts: o.maxAttempts ?? 20,
    now: stamp,
  });
  // PostgreSQL: other instances LISTEN; the notice is delivered when this transaction commits (SQLite: one process).
  if (o.notify !== false) await jobQueries(tx).notifyEnqueued(tx, o.type);
  return id;
}

export interface ClaimOptions {
  workerId: string;
  now: Date;
  leaseMs: number;
  limit: number;
  types?: string[];
  /**
   * At most `cap` running jobs per lane, counting `busy` (the caller's jobs already running, by lane), and at most
   * `tenantCap` per tenant across all its lanes, counting `tenantBusy`.
   */
  lanes?: { cap: number; busy: ReadonlyMap<string, number>; tenantCap?: number; tenantBusy?: ReadonlyMap<string, number> };
}

/**
 * Claims up to `limit` due jobs: queued ones whose time has come, and running ones whose lease expired (their
 * worker died). The lease is the claimer's until `leaseMs` from now. Without lanes this is one UPDATE … RETURNING.
 */
export async function claimJobs(db: Db, o: ClaimOptions): Promise<Job[]> {
  if (o.lanes) return claimWithinLanes(db, o, o.lanes);
  return byRunAt(await jobQueries(db).claim(db, leaseOf(o), o.types ?? [], o.limit));
}

const leaseOf = (o: ClaimOptions): Lease => ({
  workerId: o.workerId,
  lockedUntil: new Date(o.now.getTime() + o.leaseMs).toISOString(),
  now: o.now.toISOString(),
});

const candidate = { id: jobs.id, lane: jobs.lane, tenantId: jobs.tenantId, runAt: jobs.runAt };
type Candidate = { id: string; lane: string | null; tenantId: string | null; runAt: string };

/** Each lane's (or the unlaned, or the expired) oldest due jobs of one type: index range scans that stop at the limit. */
const candidates = (db: Db) => ({
  inLane: prepared(db, 'jobs.inLane', (d) =>
    d
      .select(candidate)
      .from(jobs)
      .where(and(eq(jobs.status, 'queued'), eq(jobs.type, p('type')), eq(jobs.lane, p('lane')), lte(jobs.runAt, p('now'))))
      .orderBy(asc(jobs.runAt))
      .limit(p('limit'))
      .prepare(),
  ),
  unlaned: prepared(db, 'jobs.unlaned', (d) =>
    d
      .select(candidate)
      .from(jobs)
      .where(and(eq(jobs.status, 'queued'), eq(jobs.type, p('type')), isNull(jobs.lane), lte(jobs.runAt, p('now'))))
      .orderBy(asc(jobs.runAt))
      .limit(p('limit'))
      .prepare(),
  ),
  expired: prepared(db, 'jobs.expired', (d) =>
    d
      .select(candidate)
      .from(jobs)
      .where(and(eq(jobs.status, 'running'), eq(jobs.type, p('type')), lt(jobs.lockedUntil, p('now'))))
      .orderBy(asc(jobs.lockedUntil))
      .limit(p('limit'))
      .prepare(),
  ),
});

/**
 * The same claim with a cap per lane, without reading a saturated lane's backlog (a slow endpoint may have thousands
 * of due deliveries): the lanes with queued jobs are listed by index seeks (one per lane), then each lane with room
 * gives its oldest due jobs, unlaned jobs and expired leases theirs; the oldest of those are leased. The lease UPDATE
 * re-checks that each is still due, so a job is never claimed twice. One job type per call. The tenant cap keeps one
 * tenant's many lanes from holding every slot: the others' jobs still find room at once.
 */
async function claimWithinLanes(db: Db, o: ClaimOptions, lanes: NonNullable<ClaimOptions['lanes']>): Promise<Job[]> {
  const [type, ...more] = o.types ?? [];
  if (!type || more.length) throw new Error('a claim with lanes takes exactly one job type');
  const now = o.now.toISOString();
  const q = candidates(db);
  const queries = jobQueries(db);
  const found: Candidate[] = [...(await q.unlaned.execute({ type, now, limit: o.limit })), ...(await q.expired.execute({ type, now, limit: o.limit }))];
  for (const lane of await queries.queuedLanes(db, type)) {
    const room = Math.min(lanes.cap - (lanes.busy.get(lane) ?? 0), o.limit);
    if (room > 0) found.push(...(await q.inLane.execute({ type, lane, now, limit: room })));
  }
  found.sort((a, b) => a.runAt.localeCompare(b.runAt));
  const counts = new Map(lanes.busy);
  const tenantCounts = new Map(lanes.tenantBusy);
  const picked: string[] = [];
  for (const c of found) {
    if (picked.length === o.limit) break;
    const n = c.lane === null ? 0 : (counts.get(c.lane) ?? 0);
    if (n >= lanes.cap) continue; // an expired lease in a lane that is full
    const t = c.tenantId === null ? 0 : (tenantCounts.get(c.tenantId) ?? 0);
    if (lanes.tenantCap !== undefined && t >= lanes.tenantCap) continue;
    if (c.lane !== null) counts.set(c.lane, n + 1);
    if (c.tenantId !== null) tenantCounts.set(c.tenantId, t + 1);
    picked.push(c.id);
  }
  if (picked.length === 0) return [];
  return byRunAt(await queries.lease(db, leaseOf(o), picked));
}

/** Rows from a lease UPDATE … RETURNING (which keeps no order), oldest first. */
const byRunAt = (rows: Job[]) => rows.sort((a, b) => a.runAt.localeCompare(b.runAt));

/** Capped exponential backoff with full jitter: 1 s, 2 s, 4 s … up to `maxMs` (5 minutes). */
export function backoffMs(attempt: number, random: () => number = Math.random, maxMs = 300_000): number {
  const cap = Math.min(maxMs, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + (random() * cap) / 2);
}

/**
 * Work committed with a job's outcome. It may return what to do once that commit is done (a log line): on PostgreSQL
 * the transaction may run more than once (a serialization conflict), so nothing outside the database happens in it.
 */
export type Ended = (tx: Tx) => Promise<AfterCommit | void> | AfterCommit | void;
type AfterCommit = () => void;

/**
 * The lease a claim handed out: this worker, this attempt (the claim increments `attempts`). A worker that lost its
 * lease (it stalled past `locked_until`, another claimed the job) writes nothing: not even the same worker id on a
 * later attempt matches an earlier attempt's fence.
 */
const heldBy = (job: Pick<Job, 'lockedBy' | 'attempts'>) =>
  and(eq(jobs.status, 'running'), eq(jobs.lockedBy, job.lockedBy ?? ''), eq(jobs.attempts, job.attempts));

/**
 * Marks the job done; `inTx` runs in the same transaction (e.g. recording the stamp). Only the holder of the lease
 * the job was claimed with can: false (and `inTx` not run) when the lease was lost.
 */
export async function completeJob(db: Db, job: Job, now: Date, inTx?: Ended): Promise<boolean> {
  let after: AfterCommit | undefined;
  // serializable: the lease's fence alone would hold in read committed (a conditional UPDATE), but inTx (a stamp's record, a delivery's outcome) decides on rows it reads
  const done = await withTransaction(db, { isolation: 'serializable', name: 'jobs.complete' }, async (tx) => {
    const complete = prepared(tx, 'jobs.complete', (d) =>
      d
        .update(jobs)
        .set({ status: 'done', lockedBy: null, lockedUntil: null, finishedAt: sql`${p('at')}`, updatedAt: sql`${p('at')}` })
        .where(and(eq(jobs.id, p('id')), eq(jobs.status, 'running'), eq(jobs.lockedBy, p('lockedBy')), eq(jobs.attempts, p('attempts'))))
        .returning({ id: jobs.id })
        .prepare(),
    );
    const done = await complete.execute({ at: now.toISOString(), id: job.id, lockedBy: job.lockedBy, attempts: job.attempts });
    if (done.length !== 1) return false;
    after = (await inTx?.(tx)) ?? undefined;
    return true;
  });
  if (done) after?.();
  return done;
}

/**
 * A failed attempt: retried later with backoff while attempts and the deadline allow (`onRetry` runs in the same
 * transaction), otherwise the job ends as failed (kept, with its last error) and `onGiveUp` runs in the same
 * transaction. `lost`: the lease was lost (see `heldBy`), nothing was written and neither ran.
 */
export async function failJob(
  db: Db,
  job: Job,
  now: Date,
  error: unknown,
  onGiveUp?: Ended,
  onRetry?: Ended,
  maxBackoffMs?: number,
): Promise<'retry' | 'failed' | 'lost'> {
  const message = error instanceof Error ? error.message : String(error);
  const next =
    error instanceof RetryLaterError
      ? new Date(Math.max(now.getTime(), error.at.getTime()))
      : new Date(now.getTime() + backoffMs(job.attempts, Math.random, maxBackoffMs));
  const permanent = error instanceof PermanentJobError;
  const tooLate = job.deadline !== null && next.toISOString() > job.deadline;
  const notAttempted = error instanceof RetryLaterError;
  const giveUp = permanent || tooLate || (!notAttempted && job.attempts >= job.maxAttempts);
  let after: AfterCommit | undefined;
  // serializable: as completeJob, onGiveUp/onRetry decide on rows they read (the invoice's state, the webhook's failures)
  const outcome = await withTransaction(db, { isolation: 'serializable', name: 'jobs.fail' }, async (tx) => {
    const written = await tx
      .update(jobs)
      .set(
        giveUp
          ? { status: 'failed', lastError: message, lockedBy: null, lockedUntil: null, finishedAt: now.toISOString(), updatedAt: now.toISOString() }
          : {
              status: 'queued',
              lastError: message,
              lockedBy: null,
              lockedUntil: null,
              runAt: next.toISOString(),
              updatedAt: now.toISOString(),
              // The claim counted it; given back (the lease's fence is released with the lease).
              ...(notAttempted && { attempts: job.attempts - 1 }),
            },
      )
      .where(and(eq(jobs.id, job.id), heldBy(job)))
      .returning({ id: jobs.id });
    if (written.length !== 1) return 'lost';
    after = (await (giveUp ? onGiveUp : onRetry)?.(tx)) ?? undefined;
    return giveUp ? 'failed' : 'retry';
  });
  after?.();
  return outcome;
}

/** A job a worker holds: its id and the attempt it claimed (the lease's fence). */
export type HeldJob = Pick<Job, 'id' | 'attempts'>;

/**
 * The heartbeat: extends to `now + leaseMs` the leases `workerId` still holds among `held`, in one UPDATE fenced
 * like completion, and returns the ids extended; a job missing from them was taken over (its lease had expired).
 * With nothing held it still reaches the database, so a worker can tell that it is reachable again.
 */
export async function extendLeases(db: Db, workerId: string, held: HeldJob[], now: Date, leaseMs: number): Promise<string[]> {
  const which = or(...held.map((j) => and(eq(jobs.id, j.id), eq(jobs.attempts, j.attempts)))) ?? sql`1 = 0`;
  const extended = await db
    .update(jobs)
    .set({ lockedUntil: new Date(now.getTime() + leaseMs).toISOString() })
    .where(and(eq(jobs.status, 'running'), eq(jobs.lockedBy, workerId), which))
    .returning({ id: jobs.id });
  return extended.map((j) => j.id);
}

/** Running jobs matching `which` are due again at once, their leases dropped. */
const requeueRunning = async (db: Db, which: SQL, now: Date): Promise<number> =>
  (
    await db
      .update(jobs)
      .set({ status: 'queued', lockedBy: null, lockedUntil: null, runAt: now.toISOString(), updatedAt: now.toISOString() })
      .where(and(eq(jobs.status, 'running'), which))
      .returning({ id: jobs.id })
  ).length;

/** At shutdown: jobs this process still holds (cut short by the time limit) are due again at once, for the next run. */
export const releaseLeases = (db: Db, workerId: string, now: Date): Promise<number> => requeueRunning(db, eq(jobs.lockedBy, workerId), now);

/**
 * At start: jobs whose lease expired (their worker died or stalled) are due again at once. A live lease is another
 * running instance's (or a worker still heartbeating it): left alone. The claim takes expired leases too; this only
 * puts them first in line after downtime.
 */
export const recoverJobs = (db: Db, now: Date): Promise<number> => requeueRunning(db, lt(jobs.lockedUntil, now.toISOString()), now);

const countWhere = (condition: SQL) => sql<number>`sum(case when ${condition} then 1 else 0 end)`.mapWith(Number);

export async function queueStats(db: Db, now: Date): Promise<{ depth: number; running: number; failed: number; oldest_due_seconds: number | null }> {
  const [row] = await db
    .select({
      depth: countWhere(eq(jobs.status, 'queued')),
      running: countWhere(eq(jobs.status, 'running')),
      failed: countWhere(eq(jobs.status, 'failed')),
      oldest: sql<string | null>`min(case when ${and(eq(jobs.status, 'queued'), lte(jobs.runAt, now.toISOString()))} then ${jobs.runAt} end)`,
    })
    .from(jobs);
  return {
    depth: row?.depth ?? 0,
    running: row?.running ?? 0,
    failed: row?.failed ?? 0,
    oldest_due_seconds: row?.oldest ? Math.max(0, Math.round((now.getTime() - Date.parse(row.oldest)) / 1000)) : null,
  };
}

/** The earliest run_at of a queued job of `types` in (after, until], if any. Prepared per set of types: a worker asks after every drain. */
export async function nextRunAt(db: Db, types: string[], after: Date, until: Date): Promise<string | undefined> {
  const next = prepared(db, `jobs.nextRunAt:${JSON.stringify(types)}`, (d) =>
    d
      .select({ runAt: jobs.runAt })
      .from(jobs)
      .where(and(eq(jobs.status, 'queued'), gt(jobs.runAt, p('after')), lte(jobs.runAt, p('until')), inArray(jobs.type, types)))
      .orderBy(asc(jobs.runAt))
      .limit(1)
      .prepare(),
  );
  return (await next.execute({ after: after.toISOString(), until: until.toISOString() }))[0]?.runAt;
}

/** Makes a queued job due at `at` (e.g. now, when the reason to wait is gone). */
export async function rescheduleJob(tx: DbOrTx, id: string, at: Date): Promise<void> {
  await tx
    .update(jobs)
    .set({ runAt: at.toISOString(), updatedAt: at.toISOString() })
    .where(and(eq(jobs.id, id), eq(jobs.status, 'queued')));
}

/** A queued job whose work was settled another way (a synchronous attempt answered): nothing left for it to do. Prepared: most invoices get here. */
export async function closeQueuedJob(tx: DbOrTx, id: string, now: Date): Promise<void> {
  const close = prepared(tx, 'jobs.closeQueued', (d) =>
    d
      .update(jobs)
      .set({ status: 'done', finishedAt: sql`${p('at')}`, updatedAt: sql`${p('at')}` })
      .where(and(eq(jobs.id, p('id')), eq(jobs.status, 'queued')))
      .prepare(),
  );
  await close.execute({ at: now.toISOString(), id });
}

/** Whether a running job of `type` has `value` in its payload's `field`: an attempt of that work is in flight. */
export async function isJobRunning(tx: DbOrTx, type: string, field: string, value: string): Promise<boolean> {
  const payload = jobQueries(tx).payloadField(field);
  return (
    (
      await tx
        .select({ id: jobs.id })
        .from(jobs)
        .where(and(eq(jobs.type, type), eq(jobs.status, 'running'), eq(payload, value)))
        .limit(1)
    ).length > 0
  );
}

/** Queued jobs of `type` with `value` in their payload's `field` end as done: their work was settled another way. */
export async function closeQueuedJobs(tx: DbOrTx, type: string, field: string, value: string, now: Date): Promise<void> {
  const payload = jobQueries(tx).payloadField(field);
  await tx
    .update(jobs)
    .set({ status: 'done', finishedAt: now.toISOString(), updatedAt: now.toISOString() })
    .where(and(eq(jobs.type, type), eq(jobs.status, 'queued'), eq(payload, value)));
}

/** The newest `limit` jobs in `status`, for the operator's `jobs` command. */
export const jobsInStatus = (db: Db, status: JobStatus, limit: number) =>
  db
    .select({
      id: jobs.id,
      type: jobs.type,
      tenant_id: jobs.tenantId,
      payload: jobs.payload,
      attempts: jobs.attempts,
      last_error: jobs.lastError,
      run_at: jobs.runAt,
      created_at: jobs.createdAt,
    })
    .from(jobs)
    .where(eq(jobs.status, status))
    .orderBy(desc(jobs.id))
    .limit(limit);

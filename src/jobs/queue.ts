import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { jobs, type Environment } from '../db/schema/index.ts';
import { newId } from '../lib/ids.ts';
import { statement } from '../db/prepared.ts';
import { withTransaction, type Tx, type DbOrTx } from '../db/index.ts';

export type Job = typeof jobs.$inferSelect;

/** Thrown by a handler for a failure that retrying cannot fix (a PAC rejection): the job ends as failed. */
export class PermanentJobError extends Error {}

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
}

const INSERT_JOB =
  "insert into jobs (id, tenant_id, environment, type, lane, payload, status, run_at, deadline, max_attempts, created_at, updated_at) values (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)";

/** Call inside the transaction that makes the change needing the work, so the two commit together. */
export async function enqueue(tx: DbOrTx, now: Date, o: EnqueueOptions): Promise<string> {
  const id = newId('job', now.getTime());
  await statement(tx, INSERT_JOB).run(
    id, o.tenantId ?? null, o.environment ?? null, o.type, o.lane ?? null, JSON.stringify(o.payload), (o.runAt ?? now).toISOString(),
    o.deadline?.toISOString() ?? null, o.maxAttempts ?? 20, now.toISOString(), now.toISOString(),
  );
  return id;
}

const DUE = "((status = 'queued' and run_at <= ?) or (status = 'running' and locked_until < ?))";

/**
 * The oldest due jobs, as two index range scans that stop at the limit (queued by run_at, expired leases by
 * locked_until) merged: one OR over both would read and sort every due row, on every claim, however deep the queue.
 * Parameters: now, ...types, limit, twice; then limit.
 */
function candidatesSql(types: string[]) {
  const filter = types.length ? `and type in (${types.map(() => '?').join(', ')})` : '';
  return `
    select id, run_at from (select id, run_at from jobs where status = 'queued' and run_at <= ? ${filter} order by run_at limit ?)
    union all
    select id, run_at from (select id, run_at from jobs where status = 'running' and locked_until < ? ${filter} order by locked_until limit ?)
    order by run_at limit ?`;
}
const candidateParams = (now: string, types: string[], limit: number) => {
  const half = [now, ...types, limit];
  return [...half, ...half, limit];
};

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
  const now = o.now.toISOString();
  const types = o.types ?? [];
  // Prepared once per connection and set of types (statement() caches by text): the claim runs on every tick.
  const claim = statement(
    db,
    `update jobs set status = 'running', locked_by = ?, locked_until = ?, attempts = attempts + 1, updated_at = ?
     where id in (select id from (${candidatesSql(types)}))
     returning *`,
  );
  return leased(await claim.all(o.workerId, new Date(o.now.getTime() + o.leaseMs).toISOString(), now, ...candidateParams(now, types, o.limit)));
}

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
  const q = {
    lanes: statement(db, `
      with recursive l(lane) as (
        select min(lane) from jobs where status = 'queued' and type = ? and lane is not null
        union all
        select (select min(lane) from jobs where status = 'queued' and type = ? and lane > l.lane) from l where l.lane is not null
      )
      select lane from l where lane is not null`),
    inLane: statement(db, "select id, lane, tenant_id, run_at from jobs where status = 'queued' and type = ? and lane = ? and run_at <= ? order by run_at limit ?"),
    unlaned: statement(db, "select id, lane, tenant_id, run_at from jobs where status = 'queued' and type = ? and lane is null and run_at <= ? order by run_at limit ?"),
    expired: statement(db, "select id, lane, tenant_id, run_at from jobs where status = 'running' and type = ? and locked_until < ? order by locked_until limit ?"),
    lease: statement(db, `
      update jobs set status = 'running', locked_by = ?, locked_until = ?, attempts = attempts + 1, updated_at = ?
      where id in (select value from json_each(?)) and ${DUE.replaceAll('status', '+status')}
      returning *`), // `+status`: look the picked ids up by key, not every queued job by status
  };
  type Candidate = { id: string; lane: string | null; tenant_id: string | null; run_at: string };
  const candidates: Candidate[] = [...(await q.unlaned.all<Candidate>(type, now, o.limit)), ...(await q.expired.all<Candidate>(type, now, o.limit))];
  for (const { lane } of await q.lanes.all<{ lane: string }>(type, type)) {
    const room = Math.min(lanes.cap - (lanes.busy.get(lane) ?? 0), o.limit);
    if (room > 0) candidates.push(...(await q.inLane.all<Candidate>(type, lane, now, room)));
  }
  candidates.sort((a, b) => a.run_at.localeCompare(b.run_at));
  const counts = new Map(lanes.busy);
  const tenantCounts = new Map(lanes.tenantBusy);
  const picked: string[] = [];
  for (const c of candidates) {
    if (picked.length === o.limit) break;
    const n = c.lane === null ? 0 : (counts.get(c.lane) ?? 0);
    if (n >= lanes.cap) continue; // an expired lease in a lane that is full
    const t = c.tenant_id === null ? 0 : (tenantCounts.get(c.tenant_id) ?? 0);
    if (lanes.tenantCap !== undefined && t >= lanes.tenantCap) continue;
    if (c.lane !== null) counts.set(c.lane, n + 1);
    if (c.tenant_id !== null) tenantCounts.set(c.tenant_id, t + 1);
    picked.push(c.id);
  }
  if (picked.length === 0) return [];
  return leased(await q.lease.all(o.workerId, new Date(o.now.getTime() + o.leaseMs).toISOString(), now, JSON.stringify(picked), now, now));
}

/** Rows from a lease UPDATE … RETURNING (which keeps no order), oldest first. */
const leased = (rows: unknown[]) => (rows as Record<string, unknown>[]).map(rowToJob).sort((a, b) => a.runAt.localeCompare(b.runAt));

function rowToJob(r: Record<string, unknown>): Job {
  return {
    id: r.id as string,
    tenantId: (r.tenant_id as string) ?? null,
    environment: (r.environment as Environment) ?? null,
    type: r.type as string,
    lane: (r.lane as string) ?? null,
    payload: JSON.parse(r.payload as string),
    status: r.status as Job['status'],
    attempts: r.attempts as number,
    maxAttempts: r.max_attempts as number,
    runAt: r.run_at as string,
    deadline: (r.deadline as string) ?? null,
    lockedBy: (r.locked_by as string) ?? null,
    lockedUntil: (r.locked_until as string) ?? null,
    lastError: (r.last_error as string) ?? null,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    finishedAt: (r.finished_at as string) ?? null,
  };
}

/** Capped exponential backoff with full jitter: 1 s, 2 s, 4 s … up to 5 minutes. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + (random() * cap) / 2);
}

type Ended = (tx: Tx) => unknown;

/** Marks the job done; `inTx` runs in the same transaction (e.g. recording the stamp). Only the lease holder can. */
export async function completeJob(db: Db, job: Job, now: Date, inTx?: Ended): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    const stamp = now.toISOString();
    const done = await statement(
      tx,
      "update jobs set status = 'done', locked_by = null, locked_until = null, finished_at = ?, updated_at = ? where id = ? and status = 'running' and locked_by = ? returning id",
    ).all(stamp, stamp, job.id, job.lockedBy);
    if (done.length !== 1) return false;
    await inTx?.(tx);
    return true;
  });
}

/**
 * A failed attempt: retried later with backoff while attempts and the deadline allow, otherwise the job ends as
 * failed (kept, with its last error) and `onGiveUp` runs in the same transaction.
 */
export async function failJob(db: Db, job: Job, now: Date, error: unknown, onGiveUp?: Ended): Promise<'retry' | 'failed'> {
  const message = error instanceof Error ? error.message : String(error);
  const next = new Date(now.getTime() + backoffMs(job.attempts));
  const permanent = error instanceof PermanentJobError;
  const tooLate = job.deadline !== null && next.toISOString() > job.deadline;
  const giveUp = permanent || tooLate || job.attempts >= job.maxAttempts;
  await withTransaction(db, async (tx) => {
    await tx.update(jobs)
      .set(
        giveUp
          ? { status: 'failed', lastError: message, lockedBy: null, lockedUntil: null, finishedAt: now.toISOString(), updatedAt: now.toISOString() }
          : { status: 'queued', lastError: message, lockedBy: null, lockedUntil: null, runAt: next.toISOString(), updatedAt: now.toISOString() },
      )
      .where(and(eq(jobs.id, job.id), eq(jobs.lockedBy, job.lockedBy!)));
    if (giveUp) await onGiveUp?.(tx);
  });
  return giveUp ? 'failed' : 'retry';
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

/** At start: jobs leased by an earlier run of the process are due again at once. */
export const recoverJobs = (db: Db, workerId: string, now: Date): Promise<number> => requeueRunning(db, ne(jobs.lockedBy, workerId), now);

export async function queueStats(db: Db, now: Date): Promise<{ depth: number; running: number; failed: number; oldest_due_seconds: number | null }> {
  const row = await db.get<{ depth: number; running: number; failed: number; oldest: string | null }>(sql`
    select
      sum(case when status = 'queued' then 1 else 0 end) as depth,
      sum(case when status = 'running' then 1 else 0 end) as running,
      sum(case when status = 'failed' then 1 else 0 end) as failed,
      min(case when status = 'queued' and run_at <= ${now.toISOString()} then run_at end) as oldest
    from jobs`);
  return {
    depth: row?.depth ?? 0,
    running: row?.running ?? 0,
    failed: row?.failed ?? 0,
    oldest_due_seconds: row?.oldest ? Math.max(0, Math.round((now.getTime() - Date.parse(row.oldest)) / 1000)) : null,
  };
}


/** Makes a queued job due at `at` (e.g. now, when the reason to wait is gone). */
export async function rescheduleJob(tx: DbOrTx, id: string, at: Date): Promise<void> {
  await statement(tx, "update jobs set run_at = ?, updated_at = ? where id = ? and status = 'queued'").run(at.toISOString(), at.toISOString(), id);
}

/** A queued job whose work was settled another way (a synchronous attempt answered): nothing left for it to do. */
export async function closeQueuedJob(tx: DbOrTx, id: string, now: Date): Promise<void> {
  await statement(tx, "update jobs set status = 'done', finished_at = ?, updated_at = ? where id = ? and status = 'queued'").run(now.toISOString(), now.toISOString(), id);
}

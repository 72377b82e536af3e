import { sql, type SQL } from 'drizzle-orm';
import { executeSql, forDialect, type DbOrTx } from '../db/index.ts';
import { statement } from '../db/prepared.ts';
import { jobs, type Environment } from '../db/schema/index.ts';

type Job = typeof jobs.$inferSelect;

/** Who takes a lease, until when, and the instant "due" is measured at (ISO date-times). */
export interface Lease {
  workerId: string;
  lockedUntil: string;
  now: string;
}

/** The queue's statements whose plan or syntax is the engine's own: the claim, the lane listing, payload fields. */
export interface JobQueries {
  /** Leases the `limit` oldest due jobs (of `types`, or of any type) in one statement; rows in no order. */
  claim(db: DbOrTx, lease: Lease, types: string[], limit: number): Promise<Job[]>;
  /** The lanes holding queued jobs of `type`. */
  queuedLanes(db: DbOrTx, type: string): Promise<string[]>;
  /** Leases those of `ids` still due (another claimer may have taken some meanwhile); rows in no order. */
  lease(db: DbOrTx, lease: Lease, ids: string[]): Promise<Job[]>;
  /** The text value of a top-level payload field, for a WHERE. */
  payloadField(field: string): SQL;
  /** Tells the other instances a job of `type` was enqueued, when the enclosing transaction commits. */
  notifyEnqueued(db: DbOrTx, type: string): Promise<void>;
}

/** The PostgreSQL channel enqueues notify on, with the job type as payload. */
export const JOBS_CHANNEL = 'cfdi_jobs';

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

const sqlite: JobQueries = {
  // Prepared once per connection and set of types (statement() caches by text): the claim runs on every tick.
  claim: async (db, l, types, limit) =>
    rows(
      await statement(
        db,
        `update jobs set status = 'running', locked_by = ?, locked_until = ?, attempts = attempts + 1, updated_at = ?
         where id in (select id from (${candidatesSql(types)}))
         returning *`,
      ).all(l.workerId, l.lockedUntil, l.now, ...candidateParams(l.now, types, limit)),
    ),
  // One index seek per lane (a skip scan written out), however many jobs each lane holds.
  queuedLanes: async (db, type) =>
    (
      await statement(
        db,
        `with recursive l(lane) as (
           select min(lane) from jobs where status = 'queued' and type = ? and lane is not null
           union all
           select (select min(lane) from jobs where status = 'queued' and type = ? and lane > l.lane) from l where l.lane is not null
         )
         select lane from l where lane is not null`,
      ).all<{ lane: string }>(type, type)
    ).map((r) => r.lane),
  // The ids as one JSON parameter keep a single prepared text; `+status` looks them up by key, not every queued job by status.
  lease: async (db, l, ids) =>
    rows(
      await statement(
        db,
        `update jobs set status = 'running', locked_by = ?, locked_until = ?, attempts = attempts + 1, updated_at = ?
         where id in (select value from json_each(?)) and ${DUE.replaceAll('status', '+status')}
         returning *`,
      ).all(l.workerId, l.lockedUntil, l.now, JSON.stringify(ids), l.now, l.now),
    ),
  payloadField: (field) => sql`json_extract(${jobs.payload}, ${`$.${field}`})`,
  // One process per database file: the enqueuing service wakes its own worker.
  notifyEnqueued: async () => {},
};

/** Due, as the claim's WHERE re-checks it once the row is locked. */
const duePg = (now: string) => sql`((status = 'queued' and run_at <= ${now}) or (status = 'running' and locked_until < ${now}))`;
const setLease = (l: Lease) =>
  sql`update jobs set status = 'running', locked_by = ${l.workerId}, locked_until = ${l.lockedUntil}, attempts = attempts + 1, updated_at = ${l.now}`;

const postgres: JobQueries = {
  // SKIP LOCKED: concurrent claimers (other instances) pass over each other's rows instead of waiting on them.
  claim: async (db, l, types, limit) =>
    rows(
      await executeSql(
        db,
        sql`${setLease(l)} where id in (
              select id from jobs where ${duePg(l.now)} ${types.length ? sql`and type in ${types}` : sql``}
              order by run_at limit ${limit} for update skip locked)
            and ${duePg(l.now)}
            returning *`,
      ),
    ),
  queuedLanes: async (db, type) =>
    (await executeSql(db, sql`select distinct lane from jobs where status = 'queued' and type = ${type} and lane is not null`)).map((r) => r.lane as string),
  lease: async (db, l, ids) => (ids.length === 0 ? [] : rows(await executeSql(db, sql`${setLease(l)} where id in ${ids} and ${duePg(l.now)} returning *`))),
  payloadField: (field) => sql`(${jobs.payload}::jsonb ->> ${field})`,
  // pg_notify, not NOTIFY: the channel and payload are parameters. Sent at commit, dropped on rollback.
  notifyEnqueued: async (db, type) => void (await executeSql(db, sql`select pg_notify(${JOBS_CHANNEL}, ${type})`)),
};

export const jobQueries = (db: DbOrTx): JobQueries => forDialect(db, { sqlite, postgres });

/** Rows of a hand-written `returning *`, as the query builder would have mapped them. */
const rows = (raw: unknown[]): Job[] => (raw as Record<string, unknown>[]).map(rowToJob);

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

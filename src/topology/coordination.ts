import type { Db } from '../db/client.ts';
import type { RateLimits } from '../gateway/rate-limit.ts';
import type { Heartbeat } from '../jobs/scheduler.ts';
import type { IdentityChanges } from '../lib/identity-changes.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * What must stay one across the processes or instances that serve one database, whatever the deployment's shape.
 * One implementation per shape, chosen once by src/index.ts from the configuration:
 * - src/topology/single.ts: one process on SQLite (everything in this process);
 * - src/topology/postgres.ts: any number of instances on PostgreSQL (counter table, LISTEN/NOTIFY, advisory locks);
 * - src/topology/supervised.ts: a supervisor and its workers (WORKERS > 1) over IPC (src/topology/cluster.ts), around
 *   one of the two above.
 * Nothing outside src/topology (and src/db, the SQL engine itself) asks which engine or shape it runs on
 * (tests/topology/port.test.ts).
 */
export interface Coordination {
  /** The rate counters, one set for every process serving the database. */
  rateLimits: RateLimits;
  /** Carries identity changes (API keys, users, tenants, plans) to the other processes' caches. */
  identityChanges: IdentityChanges;
  /** Wakes this process's job worker when another process enqueues. */
  jobWakeups: JobWakeups;
  /**
   * Runs `work` unless another process is running the work named `name` right now; resolves to whether it ran. It
   * keeps processes from running the same work at once, not one after the other: the work must be idempotent.
   */
  exclusive(name: string, work: () => Promise<unknown>): Promise<boolean>;
  /** The SAT catalogs' SQLite database (FTS5 search), per process; never the business database's backups. */
  catalogs: Db;
  /** The one scheduler's heartbeat, which /health reads (in a worker: its supervisor's, relayed on each tick). */
  heartbeat: Heartbeat;
}

export interface JobWakeups {
  /**
   * Calls `wake(type)` for each job another process enqueues, and `wake()` when notices may have been lost. Polling
   * stays the floor: a lost notice delays a job until the next tick. Resolves to a function that stops listening.
   */
  listen(wake: (type?: string) => void, logger: Logger): Promise<() => Promise<void>>;
}

/** A heartbeat that reads the scheduler once there is one (index.ts makes the scheduler after the app, which reads it). */
export function lateHeartbeat(): Heartbeat & { follow(heartbeat: Heartbeat): void } {
  let followed: Heartbeat | undefined;
  return {
    lastTickAt: () => followed?.lastTickAt() ?? null,
    get intervalMs() {
      return followed?.intervalMs ?? 5000;
    },
    follow(heartbeat) {
      followed = heartbeat;
    },
  };
}

/** Nothing to hear: every enqueue is this process's, whose services wake its worker themselves. */
export const noJobWakeups: JobWakeups = { listen: async () => async () => {} };

import type { Db } from '../db/client.ts';
import { unlessRunningElsewhere } from '../db/advisory-lock.ts';
import { postgresOf } from '../db/engine.ts';
import { counterTableRateLimits } from '../gateway/rate-limit.ts';
import { JOBS_CHANNEL } from '../jobs/queries.ts';
import type { Heartbeat } from '../jobs/scheduler.ts';
import type { Logger } from '../lib/logger.ts';
import type { Coordination } from './coordination.ts';

/** The PostgreSQL channel every instance listens on; a notice's payload is the tenant id whose entries are stale. */
const IDENTITY_CHANNEL = 'cfdi_cache';

/**
 * Any number of instances on one PostgreSQL database: the database is what they share. One counter table every
 * instance spends from (windows on the database's clock), identity changes and enqueues through NOTIFY/LISTEN (each
 * listener on a connection of its own), "only one of us" through a session advisory lock (src/db/advisory-lock.ts).
 * `listen` false: hear no other instance (tests of one instance: each listener holds a connection until the run ends).
 * `clock`: a clock the rate windows follow instead of the database's (tests).
 */
export function postgresInstances(opts: { db: Db; catalogs: Db; heartbeat: Heartbeat; clock?: () => Date; logger?: Logger; listen?: boolean }): Coordination {
  const sql = postgresOf(opts.db);
  if (!sql) throw new Error('postgresInstances: not a PostgreSQL database');
  const listen = opts.listen ?? true;
  return {
    rateLimits: counterTableRateLimits(opts.db, opts.clock, opts.logger),
    identityChanges: {
      announce: async (tenantId) => void (await sql.notify(IDENTITY_CHANNEL, tenantId)),
      // Each (re)connect drops everything: notices sent while the connection was down are lost, and the caches' TTL
      // would otherwise be the only bound.
      listen: async (drop) => {
        if (listen)
          await sql.listen(
            IDENTITY_CHANNEL,
            (tenantId) => drop(tenantId),
            () => drop(undefined),
          );
      },
    },
    jobWakeups: { listen: (wake, logger) => (listen ? listenForEnqueues(opts.db, wake, logger) : Promise.resolve(async () => {})) },
    exclusive: (name, work) => unlessRunningElsewhere(opts.db, name, work),
    catalogs: opts.catalogs,
    heartbeat: opts.heartbeat,
  };
}

/**
 * Calls `onEnqueued(type)` for each job any instance enqueues (enqueue notifies when its transaction commits), and
 * `onEnqueued()` whenever the listener (re)connects, since notices sent while it was away are lost. postgres.js keeps
 * the listening connection apart from the pool and listens again after a reconnect. Polling stays the floor: a lost
 * notice delays a job until the next tick, never loses it. Resolves to a function that stops listening.
 */
export async function listenForEnqueues(db: Db, onEnqueued: (type?: string) => void, logger: Logger): Promise<() => Promise<void>> {
  const sql = postgresOf(db);
  if (!sql) throw new Error('listenForEnqueues: not a PostgreSQL database');
  try {
    const { unlisten } = await sql.listen(
      JOBS_CHANNEL,
      (type) => onEnqueued(type),
      () => onEnqueued(),
    );
    return unlisten;
  } catch (err) {
    logger.warn('not listening for enqueued jobs: other instances’ jobs wait for the next poll', { err: err instanceof Error ? err.message : String(err) });
    return async () => {};
  }
}

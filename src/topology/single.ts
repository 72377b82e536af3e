import type { Db } from '../db/client.ts';
import { processRateLimits } from '../gateway/rate-limit.ts';
import type { Heartbeat } from '../jobs/scheduler.ts';
import { type Coordination, noJobWakeups } from './coordination.ts';

/**
 * One process on SQLite: it is the only one on its database file, so everything that must stay one is simply in
 * this process. Rate counters in memory (a restart opens a new window), identity changes dropped locally by the
 * announcer (nobody else to tell), enqueues wake the worker in place, "only one of us" is always us.
 */
export function singleProcess(opts: { catalogs: Db; heartbeat: Heartbeat; clock?: () => Date }): Coordination {
  return {
    rateLimits: processRateLimits(opts.clock),
    identityChanges: { announce: async () => {}, listen: async () => {} },
    jobWakeups: noJobWakeups,
    exclusive: async (_name, work) => {
      await work();
      return true;
    },
    catalogs: opts.catalogs,
    heartbeat: opts.heartbeat,
  };
}

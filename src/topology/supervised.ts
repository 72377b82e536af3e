import { sharedMemoryRateLimits } from '../gateway/rate-limit.ts';
import type { Drop } from '../lib/identity-changes.ts';
import type { supervisorLink, Workers } from './cluster.ts';
import type { Coordination } from './coordination.ts';

/**
 * Several processes under a supervisor (WORKERS > 1), over IPC (src/topology/cluster.ts is the transport), around the
 * coordination of the database they share (`base`: single.ts's or postgres.ts's). `sharedByDatabase`: the base's rate
 * counters and identity changes already reach every process (PostgreSQL); otherwise (SQLite) they go through the
 * supervisor: one set of counters, the supervisor's, and identity changes relayed to every worker before the answer.
 * Only the supervisor runs the scheduler: a worker's heartbeat is the supervisor's, relayed on each tick.
 */

/** The supervisor's side: its own app's coordination, and what its workers' requests reach over IPC. */
export function supervisorCoordination(base: Coordination, sharedByDatabase: boolean) {
  if (sharedByDatabase) return { coordination: base, services: { heartbeat: base.heartbeat }, attach: (_workers: Workers) => {} };
  let workers: Workers | undefined;
  let drop: Drop = () => {};
  const rateLimits = sharedMemoryRateLimits();
  const coordination: Coordination = {
    ...base,
    rateLimits,
    identityChanges: {
      announce: (tenantId) => workers?.relayIdentity(tenantId) ?? Promise.resolve(),
      listen: async (dropped) => {
        drop = dropped;
      },
    },
  };
  return {
    coordination,
    /** What spawnWorkers' go serves the workers with. */
    services: { rateLimits, dropIdentity: (tenantId: string) => drop(tenantId), heartbeat: base.heartbeat },
    /** The workers, once they serve: the supervisor's own identity changes reach them from then on. */
    attach(serving: Workers) {
      workers = serving;
    },
  };
}

/** A worker's side: its supervisor's counters, identity relay and heartbeat, through `link`. */
export function workerCoordination(base: Coordination, link: ReturnType<typeof supervisorLink>, sharedByDatabase: boolean): Coordination {
  return {
    ...base,
    heartbeat: link.heartbeat,
    ...(sharedByDatabase
      ? {}
      : {
          rateLimits: link.rateLimits,
          identityChanges: {
            announce: link.announceIdentity,
            listen: async (drop) => link.onIdentity(drop),
          },
        }),
  };
}

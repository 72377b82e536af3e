import { type Db, openDatabase } from '../db/client.ts';
import { dialectOf } from '../db/engine.ts';
import type { Heartbeat } from '../jobs/scheduler.ts';
import type { Logger } from '../lib/logger.ts';
import type { Coordination } from './coordination.ts';
import { postgresInstances } from './postgres.ts';
import { singleProcess } from './single.ts';

/**
 * The Coordination of a process on `db` without a supervisor (tests, benchmarks, the CLI's commands): one process on a
 * SQLite database, or one instance among any on PostgreSQL. `catalogs`: default `db` on SQLite, an in-memory SQLite
 * database on PostgreSQL (loaded on first use). `listen` (PostgreSQL): hear the other instances (default true).
 * `heartbeat`: default one that never ticked.
 */
export function coordinationFor(
  db: Db,
  opts: { heartbeat?: Heartbeat; clock?: () => Date; logger?: Logger; listen?: boolean; catalogs?: Db } = {},
): Coordination {
  const heartbeat = opts.heartbeat ?? { lastTickAt: () => null, intervalMs: 5000 };
  if (dialectOf(db) === 'sqlite') return singleProcess({ catalogs: opts.catalogs ?? db, heartbeat, clock: opts.clock });
  return postgresInstances({ db, ...opts, catalogs: opts.catalogs ?? openDatabase(':memory:'), heartbeat });
}

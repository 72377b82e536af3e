import type { Db } from '../db/client.ts';
import { postgresOf } from '../db/engine.ts';
import type { Logger } from '../lib/logger.ts';
import { JOBS_CHANNEL } from './queries.ts';

/**
 * PostgreSQL: calls `onEnqueued(type)` for each job any instance enqueues (enqueue notifies when its transaction
 * commits), and `onEnqueued()` whenever the listener (re)connects, since notices sent while it was away are lost.
 * postgres.js keeps the listening connection apart from the pool and listens again after a reconnect. Polling
 * stays the floor: a lost notice delays a job until the next tick, never loses it. SQLite: nothing to listen to
 * (one process, whose services wake its worker themselves). Resolves to a function that stops listening.
 */
export async function listenForEnqueues(db: Db, onEnqueued: (type?: string) => void, logger: Logger): Promise<() => Promise<void>> {
  const sql = postgresOf(db);
  if (!sql) return async () => {};
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

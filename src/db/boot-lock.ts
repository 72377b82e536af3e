import type { Db } from './connection.ts';
import { engineOf } from './engine.ts';
import { BOOT_WORK_LOCK } from './postgres/advisory-locks.ts';

/**
 * Runs `work` as the only instance doing so: on PostgreSQL under a session advisory lock held on a reserved
 * connection (instances booting together queue behind the first, then find its work done); on SQLite, which one
 * process owns, directly. `work` goes through `db`'s pool, so that pool needs a connection besides the lock's.
 */
export async function underBootLock<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const engine = engineOf(db);
  if (engine.dialect === 'sqlite') return work();
  const lock = await engine.sql.reserve();
  try {
    await lock`select pg_advisory_lock(${BOOT_WORK_LOCK})`;
    return await work();
  } finally {
    // A lost connection has released the lock with its session.
    await lock`select pg_advisory_unlock(${BOOT_WORK_LOCK})`.catch(() => {});
    lock.release();
  }
}

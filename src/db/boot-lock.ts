import type { Db } from './connection.ts';
import { engineOf } from './engine.ts';
import { BOOT_WORK_LOCK, DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS, takeWithin } from './postgres/advisory-locks.ts';

export { BootLockTimeout, DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS } from './postgres/advisory-locks.ts';

/**
 * Runs `work` as the only instance doing so: on PostgreSQL under a session advisory lock held on a reserved
 * connection (instances booting together queue behind the first, then find its work done); on SQLite, which one
 * process owns, directly. `work` goes through `db`'s pool, so that pool needs a connection besides the lock's.
 * A lock not free within `timeoutSeconds` throws BootLockTimeout, naming the lock, who holds it and the setting: an
 * instance stuck in its boot work (or a session that took the lock by hand) would otherwise hold every start forever.
 */
export async function underBootLock<T>(db: Db, work: () => Promise<T>, timeoutSeconds: number = DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS): Promise<T> {
  const engine = engineOf(db);
  if (engine.dialect === 'sqlite') return work();
  const lock = await engine.sql.reserve();
  try {
    await takeWithin(lock, BOOT_WORK_LOCK, 'boot lock', timeoutSeconds);
    try {
      return await work();
    } finally {
      // A lost connection has released the lock with its session.
      await lock`select pg_advisory_unlock(${BOOT_WORK_LOCK})`.catch(() => {});
    }
  } finally {
    lock.release();
  }
}

import type { Db } from './connection.ts';
import { engineOf } from './engine.ts';
import { BOOT_WORK_LOCK } from './postgres/advisory-locks.ts';

/** How long a start waits for the boot lock by default (BOOT_LOCK_TIMEOUT_SECONDS). */
export const DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS = 120;

/** The boot lock was not free within the timeout: the message is the one line a start prints before it stops. */
export class BootLockTimeout extends Error {}

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
    try {
      // lock_timeout bounds the wait for an advisory lock too; set on this session only while it waits.
      await lock`select set_config('lock_timeout', ${`${timeoutSeconds * 1000}ms`}, false)`;
      await lock`select pg_advisory_lock(${BOOT_WORK_LOCK})`;
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      const holders = await lock<{ pid: number; client: string | null; application: string | null; since: Date | null }[]>`
        select a.pid, host(a.client_addr) as client, a.application_name as application, a.backend_start as since
        from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.classid = 0 and l.objid = ${BOOT_WORK_LOCK} and l.objsubid = 1
          and l.database = (select oid from pg_database where datname = current_database())`.catch(() => []);
      const holder = holders[0];
      const who = holder
        ? `held by PostgreSQL session ${holder.pid}${holder.client ? ` from ${holder.client}` : ''}${holder.application ? ` (${holder.application})` : ''}${holder.since ? ` connected since ${new Date(holder.since).toISOString()}` : ''}, most likely another instance still starting or stuck in its start-up work`
        : 'held by another session, most likely another instance still starting or stuck in its start-up work';
      throw new BootLockTimeout(
        `the boot lock (PostgreSQL advisory lock ${BOOT_WORK_LOCK}) was not free within ${timeoutSeconds} s: ${who}; stop that instance (or end that session) and start again, or wait longer with BOOT_LOCK_TIMEOUT_SECONDS`,
      );
    } finally {
      await lock`select set_config('lock_timeout', '0', false)`.catch(() => {});
    }
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

import type { ReservedSql } from 'postgres';

/**
 * The keys of the session-level advisory locks instances take on a shared PostgreSQL database, in one list so no
 * two purposes share a key by accident (a lock is per database: these never meet another application's).
 */

/** Held while migrations apply. */
export const MIGRATION_LOCK = 0x43464449; // "CFDI"
/** Held while the one-time boot work runs (src/boot.ts): after the migrations, apart from them. */
export const BOOT_WORK_LOCK = 0x43464442; // "CFDB"

/** How long a start waits for the migration lock, then the boot lock, by default (BOOT_LOCK_TIMEOUT_SECONDS). */
export const DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS = 120;

/** A lock not free within its timeout: the message is the one line a start prints before it stops. */
export class BootLockTimeout extends Error {}

/**
 * Takes the session advisory lock `key` on the reserved connection `lock`, waiting at most `timeoutSeconds`; past it
 * throws BootLockTimeout naming the lock, the PostgreSQL session holding it and the setting: an instance stuck in its
 * start (or a session that took the lock by hand) would otherwise hold every start forever.
 */
export async function takeWithin(lock: ReservedSql, key: number, name: string, timeoutSeconds: number): Promise<void> {
  try {
    // lock_timeout bounds the wait for an advisory lock too; set on this session only while it waits.
    await lock`select set_config('lock_timeout', ${`${timeoutSeconds * 1000}ms`}, false)`;
    await lock`select pg_advisory_lock(${key})`;
  } catch (err) {
    if ((err as { code?: string }).code !== '55P03') throw err;
    const holders = await lock<{ pid: number; client: string | null; application: string | null; since: Date | null }[]>`
      select a.pid, host(a.client_addr) as client, a.application_name as application, a.backend_start as since
      from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.classid = 0 and l.objid = ${key} and l.objsubid = 1
        and l.database = (select oid from pg_database where datname = current_database())`.catch(() => []);
    const holder = holders[0];
    const who = holder
      ? `held by PostgreSQL session ${holder.pid}${holder.client ? ` from ${holder.client}` : ''}${holder.application ? ` (${holder.application})` : ''}${holder.since ? ` connected since ${new Date(holder.since).toISOString()}` : ''}, most likely another instance still starting or stuck in its start-up work`
      : 'held by another session, most likely another instance still starting or stuck in its start-up work';
    throw new BootLockTimeout(
      `the ${name} (PostgreSQL advisory lock ${key}) was not free within ${timeoutSeconds} s: ${who}; stop that instance (or end that session) and start again, or wait longer with BOOT_LOCK_TIMEOUT_SECONDS`,
    );
  } finally {
    await lock`select set_config('lock_timeout', '0', false)`.catch(() => {});
  }
}

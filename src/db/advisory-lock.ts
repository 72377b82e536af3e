import type { Db } from './connection.ts';
import { postgresOf } from './engine.ts';

/**
 * The first key of the two-key advisory locks held around periodic work; the second is the work's name hashed. The
 * boot lock (postgres/migrate.ts) is a one-key lock, a key space PostgreSQL keeps apart from the two-key one.
 */
const PERIODIC_LOCKS = 0x43464450;

/**
 * Runs `work` unless another instance is running the work named `name` right now (PostgreSQL: a session advisory
 * lock, taken with pg_try_advisory_lock on a connection reserved for as long as the work runs, so the lock is freed
 * with that connection if this process dies). Resolves to whether it ran. SQLite has one process: it always runs.
 * The lock keeps instances from running the same work at once, not one after the other: the work must be idempotent.
 */
export async function unlessRunningElsewhere(db: Db, name: string, work: () => Promise<unknown>): Promise<boolean> {
  const sql = postgresOf(db);
  if (!sql) {
    await work();
    return true;
  }
  const lock = await sql.reserve();
  try {
    const [row] = await lock<{ locked: boolean }[]>`select pg_try_advisory_lock(${PERIODIC_LOCKS}, hashtext(${name})) as locked`;
    if (!row?.locked) return false;
    try {
      await work();
      return true;
    } finally {
      await lock`select pg_advisory_unlock(${PERIODIC_LOCKS}, hashtext(${name}))`.catch(() => {});
    }
  } finally {
    lock.release();
  }
}

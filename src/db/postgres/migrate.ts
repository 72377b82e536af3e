import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Sql } from 'postgres';
import { DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS, MIGRATION_LOCK, takeWithin } from './advisory-locks.ts';

// The executable carries drizzle/ as an embedded asset beside its own path (src/compile.ts).
const MIGRATIONS_FOLDER = Bun.isStandaloneExecutable
  ? join(import.meta.dir, 'drizzle', 'postgres')
  : fileURLToPath(new URL('../../../drizzle/postgres', import.meta.url));

/**
 * Apply every pending PostgreSQL migration, holding the migration lock on a connection of its own: instances starting
 * together wait for the first, then find nothing left to do. The migrations run through the pool, so it needs a
 * second connection. Returns how many this call applied. A lock not free within `timeoutSeconds` throws BootLockTimeout.
 */
export async function migratePostgres(sql: Sql, timeoutSeconds = DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS): Promise<number> {
  const lock = await sql.reserve();
  try {
    await takeWithin(lock, MIGRATION_LOCK, 'migration lock', timeoutSeconds);
    const applied = async () => {
      const [table] = await lock<{ exists: boolean }[]>`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`;
      if (!table!.exists) return 0;
      const [row] = await lock<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
      return row!.n;
    };
    const before = await applied();
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
    return (await applied()) - before;
  } finally {
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    lock.release();
  }
}

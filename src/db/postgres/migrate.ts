import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Sql } from 'postgres';

// The executable carries drizzle/ as an embedded asset beside its own path (src/compile.ts).
const MIGRATIONS_FOLDER = Bun.isStandaloneExecutable
  ? join(import.meta.dir, 'drizzle', 'postgres')
  : fileURLToPath(new URL('../../../drizzle/postgres', import.meta.url));

/** The advisory lock every instance takes around its boot-time work (migrations), so N instances never race. */
const BOOT_LOCK = 0x43464449; // "CFDI"

/**
 * Apply every pending PostgreSQL migration, holding the boot lock on a connection of its own: instances starting
 * together wait for the first, then find nothing left to do.
 */
export async function migratePostgres(sql: Sql): Promise<void> {
  const lock = await sql.reserve();
  try {
    await lock`select pg_advisory_lock(${BOOT_LOCK})`;
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lock`select pg_advisory_unlock(${BOOT_LOCK})`.catch(() => {});
    lock.release();
  }
}

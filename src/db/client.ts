import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as schema from './schema/index.ts';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

// The executable carries drizzle/ as an embedded asset beside its own path (src/compile.ts).
export const MIGRATIONS_FOLDER = Bun.isStandaloneExecutable ? join(import.meta.dir, 'drizzle') : fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Open (or create) the database, set the pragmas and apply every pending migration. */
export function openDatabase(path: string): Db {
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  // It holds password hashes and sealed keys: only the service's user reads it (SQLite gives -wal/-shm the same mode).
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return db;
}

export { schema };

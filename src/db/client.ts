import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { chmodSync, closeSync, existsSync, fstatSync, fsync, openSync, statfsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncDatabase, type Db } from './connection.ts';
import { sqliteOf } from './engine.ts';

export type { Db, DbOrTx } from './connection.ts';

// The executable carries drizzle/ as an embedded asset beside its own path (src/compile.ts).
const MIGRATIONS_FOLDER = Bun.isStandaloneExecutable
  ? join(import.meta.dir, 'drizzle', 'sqlite')
  : fileURLToPath(new URL('../../drizzle/sqlite', import.meta.url));

/**
 * Open (or create) the database, set the pragmas and apply every pending migration. `synchronous`: `full` (the
 * default) syncs the WAL before every write resolves, so an answered invoice survives a power loss; `normal` syncs
 * only at checkpoints and may lose the last commits (never corrupts). `migrated` is told how many migrations it applied.
 *
 * `full` is not SQLite's synchronous=FULL, which syncs inside COMMIT: while the write lock is held, on the event
 * loop's thread, once per commit. The connection runs synchronous=NORMAL and each write then awaits walSyncer (same
 * guarantee for every answer; the sync off the thread, outside the lock, one for all commits waiting together).
 */
export function openDatabase(path: string, synchronous: 'full' | 'normal' = 'full', migrated?: (applied: number) => void): Db {
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  // It holds password hashes and sealed keys: only the service's user reads it (SQLite gives -wal/-shm the same mode).
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Migrations run once, synchronously, before anything else can use the connection.
  const applied = () =>
    sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get()
      ? (sqlite.prepare('select count(*) as n from __drizzle_migrations').get() as { n: number }).n
      : 0;
  const before = applied();
  migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS_FOLDER });
  migrated?.(applied() - before);
  return asyncDatabase(sqlite, synchronous === 'full' && !sqlite.memory ? walSyncer(`${path}-wal`) : undefined);
}

/**
 * Makes every write to the WAL so far durable: fsync of the WAL file on libuv's threads. A sync already in flight
 * may have started before the caller's commit, so callers arriving meanwhile share the next one (group commit). The
 * file is reopened if SQLite replaced it (another inode under the same name).
 */
function walSyncer(walPath: string): () => Promise<void> {
  let fd: number | undefined;
  let inode = -1;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const now = statSync(walPath, { throwIfNoEntry: false });
      if (!now) return resolve(); // no WAL: SQLite folded it into the database file, which it synced
      if (fd === undefined || now.ino !== inode) {
        if (fd !== undefined) closeSync(fd);
        fd = openSync(walPath, 'r');
        inode = fstatSync(fd).ino;
      }
      fsync(fd, (err) => (err ? reject(err) : resolve()));
    });
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const sync = (): Promise<void> => {
    if (!running) {
      running = once().finally(() => {
        running = undefined;
      });
      return running;
    }
    next ??= running
      .catch(() => {})
      .then(() => {
        next = undefined;
        return sync();
      });
    return next;
  };
  return sync;
}

/** Below this much room for the database the service refuses to start and /health reports the database down. */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;
/** Below this much room a start logs a warning. */
export const LOW_FREE_BYTES = 1024 * 1024 * 1024;

/** Free bytes on the filesystem holding `dir` for this (unprivileged) user. */
export function freeBytes(dir: string): number {
  const fs = statfsSync(dir);
  return fs.bavail * fs.bsize;
}

/**
 * Room the database has to grow: the filesystem's free space, or less when SQLite's max_page_count caps it.
 * Undefined on PostgreSQL, whose server watches its own disk.
 */
export function storageRoom(db: Db): number | undefined {
  const sqlite = sqliteOf(db);
  if (!sqlite) return undefined;
  const pragma = (name: string) => Number(sqlite.pragma(name, { simple: true }));
  const pages = pragma('max_page_count') - pragma('page_count') + pragma('freelist_count');
  const sqliteRoom = pages * pragma('page_size');
  return sqlite.memory ? sqliteRoom : Math.min(sqliteRoom, freeBytes(dirname(sqlite.name)));
}

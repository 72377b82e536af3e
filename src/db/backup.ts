import Database from 'better-sqlite3';
import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import type { DatabaseConfig } from '../env.ts';
import { masterKeyState } from './master-key.ts';

export interface BackupSummary {
  file: string;
  bytes: number;
  tenants: number;
  cfdis: number;
  integrity: 'ok';
  duration_ms: number;
}

export class BackupError extends Error {}

/** Backups and restores copy SQLite's file: on PostgreSQL, the one line that says so; otherwise undefined. */
export function fileCopyRefusal(database: DatabaseConfig, command: 'backup' | 'restore'): string | undefined {
  return database.engine === 'postgres' ? `${command} is SQLite's: on PostgreSQL use its own tools (pg_dump, pg_restore)` : undefined;
}

/**
 * A consistent copy of the live database while the service keeps writing: `VACUUM INTO` reads one snapshot (WAL
 * readers never block writers, and unlike the page-by-page backup API it does not restart when a writer commits),
 * writes `<file>.partial`, checks it, then renames it. So a file with the final name is always a whole, checked
 * backup. Never overwrites.
 */
export function backupDatabase(databasePath: string, file: string): BackupSummary {
  const started = performance.now();
  if (!existsSync(databasePath)) throw new BackupError(`no database at ${databasePath}`);
  if (existsSync(file)) throw new BackupError(`${file} exists: choose a new file name`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  const source = new Database(databasePath, { fileMustExist: true, timeout: 10_000 });
  try {
    source.prepare('VACUUM INTO ?').run(partial);
  } finally {
    source.close();
  }
  settle(partial); // one self-contained file: reading it later creates no -wal or -shm beside it
  chmodSync(partial, 0o600); // as the database: password hashes and sealed keys
  const summary = inspect(partial);
  renameSync(partial, file);
  return { file, bytes: statSync(file).size, ...summary, duration_ms: Math.round(performance.now() - started) };
}

/**
 * Puts a backup in place of the database, with the service stopped. The backup must pass `integrity_check` and open
 * with this MASTER_KEY (the CSD private keys in it are sealed with it). The database it replaces is kept beside it
 * as `<name>.before-restore-<time>`. Migrations newer than the backup run at the next start.
 */
export function restoreDatabase(
  file: string,
  databasePath: string,
  masterKey: Buffer,
  now = new Date(),
): { restored: string; previous: string | null; tenants: number; cfdis: number } {
  if (!existsSync(file)) throw new BackupError(`no backup at ${file}`);
  if (existsSync(databasePath)) settle(databasePath);
  const { tenants, cfdis } = inspect(file, masterKey);
  const previous = existsSync(databasePath) ? `${databasePath}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}` : null;
  const incoming = `${databasePath}.restoring`;
  copyFileSync(file, incoming);
  if (previous) renameSync(databasePath, previous);
  renameSync(incoming, databasePath);
  return { restored: databasePath, previous, tenants, cfdis };
}

/**
 * Proves nothing has the database open, and folds its WAL into it: leaving WAL mode needs the only connection, so
 * a running service makes this fail ("database is locked") instead of having its file replaced under it. After a
 * crash, opening it recovers the WAL first. The database is then one self-contained file, safe to move aside.
 */
function settle(databasePath: string): void {
  const db = new Database(databasePath, { fileMustExist: true, timeout: 0 });
  try {
    if (db.pragma('journal_mode = DELETE', { simple: true }) !== 'delete') throw new Error('journal mode unchanged');
  } catch (err) {
    throw new BackupError(`${databasePath} is in use (${err instanceof Error ? err.message : err}): is the service running? Stop it and try again.`);
  } finally {
    db.close();
  }
}

/** integrity_check and a few counts of a database file; with `masterKey`, also that the key opens it. */
function inspect(path: string, masterKey?: Buffer): { tenants: number; cfdis: number; integrity: 'ok' } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`${path} fails integrity_check: ${integrity}`);
    const state = masterKey && masterKeyState(db, masterKey);
    if (state === 'missing') throw new BackupError(`${path} is not a backup of this service (no master key check)`);
    if (state === 'mismatch') {
      throw new BackupError(`${path} was made with another MASTER_KEY: set MASTER_KEY (or DATA_DIR/master-key) to the key of the database it came from`);
    }
    const count = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return { tenants: count('tenants'), cfdis: count('cfdis'), integrity: 'ok' };
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${path} is not a database of this service: ${err instanceof Error ? err.message : err}`);
  } finally {
    db.close();
  }
}

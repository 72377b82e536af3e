import type { DatabaseConfig } from '../env.ts';
import { openDatabase } from './client.ts';
import type { Db } from './connection.ts';
import { openPostgres, type PostgresWait } from './postgres/client.ts';

export { reportTransactionRetries } from './postgres/client.ts';
import { postgresName } from './postgres/reach.ts';

/** How openConfiguredDatabase opens the database; each option has its engine's default. */
export interface OpenOptions {
  synchronous?: 'full' | 'normal';
  /** Told how many migrations this call applied. */
  migrated?: (applied: number) => void;
  /** PostgreSQL: how long to wait for a server still starting. */
  wait?: PostgresWait;
  /** PostgreSQL: the pool's connections (default openPostgres's). */
  poolSize?: number;
  /** PostgreSQL: how long to wait for the migration lock another instance holds (BOOT_LOCK_TIMEOUT_SECONDS). */
  lockTimeoutSeconds?: number;
}

/** The configured database, migrated: SQLite's file, or a pool on PostgreSQL. */
export async function openConfiguredDatabase(database: DatabaseConfig, o: OpenOptions = {}): Promise<Db> {
  return database.engine === 'postgres'
    ? openPostgres(database.url, { migrated: o.migrated, wait: o.wait, lockTimeoutSeconds: o.lockTimeoutSeconds, ...(o.poolSize ? { max: o.poolSize } : {}) })
    : openDatabase(database.path, o.synchronous ?? 'full', o.migrated);
}

/** Where the database is, for a message: the SQLite file, or the PostgreSQL server and database without the password. */
export function databaseName(database: DatabaseConfig): string {
  return database.engine === 'sqlite' ? `SQLite ${database.path}` : postgresName(database.url);
}

import type { DatabaseConfig } from '../env.ts';
import { openDatabase } from './client.ts';
import type { Db } from './connection.ts';
import { openPostgres, type PostgresWait } from './postgres/client.ts';

export { reportTransactionRetries } from './postgres/client.ts';
import { postgresName } from './postgres/reach.ts';

/**
 * The configured database, migrated: SQLite's file, or a pool on PostgreSQL. `migrated` is told how many migrations
 * this call applied; `wait` (PostgreSQL): how long to wait for a server still starting; `poolSize` (PostgreSQL): the
 * pool's connections (default openPostgres's).
 */
export async function openConfiguredDatabase(
  database: DatabaseConfig,
  synchronous: 'full' | 'normal' = 'full',
  migrated?: (applied: number) => void,
  wait?: PostgresWait,
  poolSize?: number,
): Promise<Db> {
  return database.engine === 'postgres'
    ? openPostgres(database.url, { migrated, wait, ...(poolSize ? { max: poolSize } : {}) })
    : openDatabase(database.path, synchronous, migrated);
}

/** Where the database is, for a message: the SQLite file, or the PostgreSQL server and database without the password. */
export function databaseName(database: DatabaseConfig): string {
  return database.engine === 'sqlite' ? `SQLite ${database.path}` : postgresName(database.url);
}

import type { DatabaseConfig } from '../env.ts';
import { openDatabase } from './client.ts';
import type { Db } from './connection.ts';
import { openPostgres } from './postgres/client.ts';

/**
 * The configured database, migrated: SQLite's file, or a pool on PostgreSQL. `migrated` is told how many migrations
 * this call applied.
 */
export async function openConfiguredDatabase(
  database: DatabaseConfig,
  synchronous: 'full' | 'normal' = 'full',
  migrated?: (applied: number) => void,
): Promise<Db> {
  return database.engine === 'postgres' ? openPostgres(database.url, { migrated }) : openDatabase(database.path, synchronous, migrated);
}

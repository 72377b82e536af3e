import type Database from 'better-sqlite3';
import type { SQL } from 'drizzle-orm';
import type { Sql } from 'postgres';
import type { DbOrTx, Tx } from './connection.ts';

/** The SQL engine behind a database handle. */
export type Dialect = 'sqlite' | 'postgres';

/** What a handle's engine gives the functions of src/db that need more than the query builders. */
export type Engine = (
  | { readonly dialect: 'sqlite'; readonly sqlite: Database.Database }
  | {
      readonly dialect: 'postgres';
      readonly sql: Sql;
      /** withTransaction's PostgreSQL implementation (src/db/postgres/client.ts). */
      readonly transaction: <T>(dbOrTx: DbOrTx, fn: (tx: Tx) => Promise<T>) => Promise<T>;
    }
) & {
  /** Runs one `sql` statement through this handle (so inside its transaction, for a tx); rows as the driver gives them. */
  readonly execute: (handle: DbOrTx, query: SQL) => Promise<Record<string, unknown>[]>;
};

// Every handle (db, and each tx) is registered by the function that makes it.
const engines = new WeakMap<object, Engine>();

export function registerEngine(handle: object, engine: Engine): void {
  engines.set(handle, engine);
}

export function engineOf(db: DbOrTx): Engine {
  const engine = engines.get(db);
  if (!engine) throw new Error('not a database from openDatabase or openPostgres');
  return engine;
}

export const dialectOf = (db: DbOrTx): Dialect => engineOf(db).dialect;

/** The better-sqlite3 connection behind a SQLite handle; undefined on PostgreSQL. */
export function sqliteOf(db: DbOrTx): Database.Database | undefined {
  const engine = engineOf(db);
  return engine.dialect === 'sqlite' ? engine.sqlite : undefined;
}

/** Closes the connection (SQLite) or ends the pool, letting running queries finish (PostgreSQL). */
export async function closeDatabase(db: DbOrTx): Promise<void> {
  const engine = engineOf(db);
  if (engine.dialect === 'sqlite') engine.sqlite.close();
  else await engine.sql.end({ timeout: 5 });
}

/**
 * One statement written with Drizzle's `sql` (its parameters bound, never `?`), run through the handle: inside its
 * transaction when it is a tx. Rows keyed by column name, values as the driver returns them. Only in a module's
 * `queries.ts`, for its engine's own SQL.
 */
export const executeSql = (db: DbOrTx, query: SQL): Promise<Record<string, unknown>[]> => engineOf(db).execute(db, query);

let preparing: string | undefined;

/** Runs `build` (synchronous) with `name` as the statement name a PostgreSQL `.prepare()` inside it gets. */
export function namingStatement<T>(name: string, build: () => T): T {
  preparing = name;
  try {
    return build();
  } finally {
    preparing = undefined;
  }
}

export const preparingName = (): string | undefined => preparing;

import type Database from 'better-sqlite3';
import { type SQL, sql } from 'drizzle-orm';
import type { Sql } from 'postgres';
import type { DbOrTx, Tx } from './connection.ts';

/**
 * How a transaction is isolated from concurrent ones on PostgreSQL (SQLite runs one writer at a time: no effect there).
 * - 'read committed': each statement sees what was committed before it; an UPDATE waits for the row's lock and then
 *   works on the committed row (never aborts). For writes whose correctness rests on row locks taken by the writes
 *   themselves (UPDATE … RETURNING on a counter, conditional UPDATEs, inserts a unique index refuses).
 * - 'serializable': as if alone; a read that decides a write (check, then insert) is safe, and a conflict aborts the
 *   transaction (40001), which is run again.
 * CONTRIBUTING.md says how to choose; every call site writes its invariant beside its choice.
 */
export type Isolation = 'read committed' | 'serializable';

/** withTransaction's choice: `name` says which transaction a log line about its re-runs is about. */
export interface TransactionOptions {
  isolation: Isolation;
  name?: string;
}

/** The SQL engine behind a database handle. */
export type Dialect = 'sqlite' | 'postgres';

/** What a handle's engine gives the functions of src/db that need more than the query builders. */
export type Engine = (
  | { readonly dialect: 'sqlite'; readonly sqlite: Database.Database }
  | {
      readonly dialect: 'postgres';
      readonly sql: Sql;
      /** withTransaction's PostgreSQL implementation (src/db/postgres/client.ts). */
      readonly transaction: <T>(dbOrTx: DbOrTx, options: TransactionOptions, fn: (tx: Tx) => Promise<T>) => Promise<T>;
    }
) & {
  /** Runs one `sql` statement through this handle (so inside its transaction, for a tx); rows as the driver gives them. */
  readonly execute: (handle: DbOrTx, query: SQL) => Promise<Record<string, unknown>[]>;
  /**
   * Where `prepared` keeps a handle's statements, and how one built on another handle is made to run through this one:
   * PostgreSQL's transactions are new handles each time, so their statements are built once for all of them.
   * Without it, each handle keeps its own.
   */
  readonly statements?: { owner(handle: DbOrTx): object; bind<T>(statement: T, handle: DbOrTx): T };
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

/**
 * Whether transactions write side by side, each waiting only for the rows it locks (PostgreSQL), rather than one
 * writer at a time, where sharing a commit pays (SQLite: withGroupCommit). A hot path keeps its locks short on the
 * first and groups on the second.
 */
export const writesConcurrently = (db: DbOrTx): boolean => engineOf(db).dialect === 'postgres';

/** The better-sqlite3 connection behind a SQLite handle; undefined on PostgreSQL. */
export function sqliteOf(db: DbOrTx): Database.Database | undefined {
  const engine = engineOf(db);
  return engine.dialect === 'sqlite' ? engine.sqlite : undefined;
}

/** The postgres.js client behind a PostgreSQL handle (LISTEN, reserved connections); undefined on SQLite. */
export function postgresOf(db: DbOrTx): Sql | undefined {
  const engine = engineOf(db);
  return engine.dialect === 'postgres' ? engine.sql : undefined;
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

/** Resolves once the database answers a `select 1`; rejects when the query fails or no answer comes within `ms`. */
export async function answersWithin(db: DbOrTx, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database gave no answer within ${ms} ms`)), ms);
  });
  try {
    // The query left behind on a timeout ends on its own (the driver's connect timeout); race() has handled it.
    await Promise.race([executeSql(db, sql`select 1`), late]);
  } finally {
    clearTimeout(timer);
  }
}

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

/** The driver's error under Drizzle's wrapping (it keeps the original as `cause`), with the fields each engine sets. */
function driverError(err: unknown): (Error & { code: string; table_name?: unknown; detail?: unknown }) | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (typeof (e as { code?: unknown }).code === 'string') return e as Error & { code: string };
  return undefined;
}

/**
 * The table and columns of the unique index a write violated, on either engine (a race two writes lost, which the
 * caller turns into a 409); undefined for any other error. SQLite names them in its message, PostgreSQL (23505) in
 * the error's table and `Key (…)=(…)` detail.
 */
export function uniqueViolation(err: unknown): { table: string; columns: string[] } | undefined {
  const e = driverError(err);
  if (!e) return undefined;
  if (e.code === '23505' && typeof e.table_name === 'string') {
    const key = typeof e.detail === 'string' ? /^Key \(([^)]*)\)=/.exec(e.detail) : null;
    return { table: e.table_name, columns: key?.[1]?.split(', ') ?? [] };
  }
  const sqlite = /UNIQUE constraint failed: (.*)$/.exec(e.message);
  if (!e.code.startsWith('SQLITE_CONSTRAINT') || !sqlite?.[1]) return undefined;
  const names = sqlite[1].split(', ').map((name) => name.split('.'));
  return { table: names[0]?.[0] ?? '', columns: names.map((name) => name[1] ?? '') };
}

/**
 * The storage could not take a write: `full` (SQLITE_FULL, PostgreSQL's disk_full 53100, or a file write's ENOSPC), `failing`
 * (SQLITE_IOERR_*, PostgreSQL's 58030 io_error) or `unreachable` (PostgreSQL refused, cut or timed out the
 * connection, or is shutting down or starting up: a restart or a failover); undefined for any other error.
 */
export function storageFailure(err: unknown): { kind: 'full' | 'failing' | 'unreachable'; code: string } | undefined {
  const code = driverError(err)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC') return { kind: 'full', code };
  if (code.startsWith('SQLITE_IOERR') || code === '58030') return { kind: 'failing', code };
  if (LOST_CONNECTION.has(code) || code.startsWith('08')) return { kind: 'unreachable', code };
  return undefined;
}

/**
 * PostgreSQL gave up a transaction for concurrent writes (a serialization failure, 40001, or a deadlock, 40P01) after
 * its re-runs' budget: many requests at once on the same rows (one series' folio counter). Nothing was written.
 */
export function writeConflict(err: unknown): boolean {
  const code = driverError(err)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * postgres.js's and the socket's codes for a connection not made or lost, and PostgreSQL's 57P01–57P03 (admin or
 * crash shutdown, cannot connect now); PostgreSQL's class 08 (connection exceptions) is matched by prefix.
 */
const LOST_CONNECTION = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
]);

import type Database from 'better-sqlite3';
import { gated, type DbOrTx, type Tx } from './connection.ts';
import { engineOf, namingStatement, sqliteOf } from './engine.ts';

const cache = new WeakMap<object, Map<string, unknown>>();

/**
 * A statement prepared once per database (or transaction handle). Building a Drizzle query costs tens of
 * microseconds, executing a prepared one a few: hot paths (every authenticated request, every invoice) use this.
 */
export function prepared<D extends DbOrTx, T>(db: D, name: string, build: (db: D) => T): T {
  const shared = engineOf(db).statements;
  const owner = shared?.owner(db) ?? db;
  let statements = cache.get(owner);
  if (!statements) cache.set(owner, (statements = new Map()));
  let stmt = statements.get(name) as T | undefined;
  if (stmt === undefined) statements.set(name, (stmt = namingStatement(name, () => build(db))));
  return shared ? shared.bind(stmt, db) : stmt;
}

/** Raw SQL with `?` placeholders, run through the connection's transaction gate (src/db/connection.ts). */
export interface RawStatement {
  run(...params: unknown[]): Promise<Database.RunResult>;
  get<T = unknown>(...params: unknown[]): Promise<T | undefined>;
  all<T = unknown>(...params: unknown[]): Promise<T[]>;
}

const raw = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * Raw SQL prepared once per connection, usable inside a transaction (pass `tx`) or outside (pass `db`). Only in a
 * module's `queries.ts`: SQL the query builder cannot express, or that is the engine's own.
 */
export function statement(dbOrTx: DbOrTx, text: string, options: { safeIntegers?: boolean } = {}): RawStatement {
  const client = sqliteConnection(dbOrTx);
  let statements = raw.get(client);
  if (!statements) raw.set(client, (statements = new Map()));
  const key = options.safeIntegers ? `safe:${text}` : text;
  let stmt = statements.get(key);
  if (!stmt) statements.set(key, (stmt = options.safeIntegers ? client.prepare(text).safeIntegers(true) : client.prepare(text)));
  const s = stmt;
  return {
    run: (...params) => gated(dbOrTx, () => s.run(...params), !s.readonly),
    get: <T>(...params: unknown[]) => gated(dbOrTx, () => s.get(...params) as T | undefined, !s.readonly),
    all: <T>(...params: unknown[]) => gated(dbOrTx, () => s.all(...params) as T[], !s.readonly),
  };
}

/**
 * Many raw writes in one synchronous batch inside a transaction (a bulk load): `fill` calls `run(sql, …params)` per
 * row, each statement prepared once.
 */
export function insertMany(tx: Tx, fill: (run: (text: string, ...params: unknown[]) => void) => void): Promise<void> {
  const client = sqliteConnection(tx);
  const prepared = new Map<string, Database.Statement>();
  return gated(tx, () =>
    fill((text, ...params) => {
      let stmt = prepared.get(text);
      if (!stmt) prepared.set(text, (stmt = client.prepare(text)));
      stmt.run(...params);
    }),
  );
}

function sqliteConnection(db: DbOrTx): Database.Database {
  const sqlite = sqliteOf(db);
  if (!sqlite) throw new Error('raw SQLite statements on a PostgreSQL database: write the PostgreSQL implementation');
  return sqlite;
}

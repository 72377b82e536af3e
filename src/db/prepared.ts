import type Database from 'better-sqlite3';
import type { Db } from './client.ts';

const cache = new WeakMap<object, Map<string, unknown>>();

/**
 * A statement prepared once per database. Building a Drizzle query costs tens of microseconds, executing a
 * prepared one a few: hot paths (every authenticated request, every invoice) use this.
 */
export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let statements = cache.get(db);
  if (!statements) cache.set(db, (statements = new Map()));
  let stmt = statements.get(name) as T | undefined;
  if (stmt === undefined) statements.set(name, (stmt = build(db)));
  return stmt;
}

/** The better-sqlite3 connection behind a Drizzle database or transaction (the same connection either way). */
function clientOf(dbOrTx: object): Database.Database {
  const x = dbOrTx as { $client?: Database.Database; session?: { client?: Database.Database } };
  const client = x.$client ?? x.session?.client;
  if (!client) throw new Error('not a better-sqlite3 Drizzle database or transaction');
  return client;
}

/**
 * Raw SQL prepared once per connection, usable inside a Drizzle transaction (better-sqlite3 transactions belong
 * to the connection). For hot writes where the query builder's cost shows in the benchmarks.
 */
export function statement(dbOrTx: object, text: string): Database.Statement {
  const client = clientOf(dbOrTx);
  let statements = cache.get(client);
  if (!statements) cache.set(client, (statements = new Map()));
  let stmt = statements.get(text) as Database.Statement | undefined;
  if (!stmt) statements.set(text, (stmt = client.prepare(text)));
  return stmt;
}

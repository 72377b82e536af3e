import type { Db } from './client.ts';

const cache = new WeakMap<Db, Map<string, unknown>>();

/**
 * A statement prepared once per database. Building a Drizzle query costs tens of microseconds, executing a
 * prepared one a few: hot paths (every authenticated request) use this.
 */
export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let statements = cache.get(db);
  if (!statements) cache.set(db, (statements = new Map()));
  let stmt = statements.get(name) as T | undefined;
  if (stmt === undefined) statements.set(name, (stmt = build(db)));
  return stmt;
}

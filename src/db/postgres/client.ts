import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQL } from 'drizzle-orm';
import { PgDatabase, PgDialect } from 'drizzle-orm/pg-core';
import { PostgresJsSession, PostgresJsTransaction } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Db, DbOrTx, Tx } from '../connection.ts';
import { preparingName, registerEngine, type Engine, type Isolation, type TransactionOptions } from '../engine.ts';
import { migratePostgres } from './migrate.ts';
import { reachPostgres } from './reach.ts';

/**
 * The same `Db` over PostgreSQL: Drizzle's PostgreSQL dialect runs the services' builders (written over the SQLite
 * table objects, whose columns src/db/postgres/schema.ts mirrors value for value). This file speaks to Drizzle's
 * untyped internals, as src/db/connection.ts does for SQLite.
 */

/**
 * A transaction that lost a serialization conflict (SQLSTATE 40001, serializable only) or a deadlock (40P01) is re-run
 * for up to this long, not a number of times: on a row many serializable transactions update, each round commits one
 * of the racers, so twenty requests racing across instances need twenty rounds. Read committed never meets 40001: a
 * writer waits for the row's lock instead (the folio counter, src/invoices/series/service.ts).
 */
const RETRY_BUDGET_MS = 10_000;
/** The longest pause between two runs (a jittered doubling from 10 ms up to this). */
const MAX_RETRY_PAUSE_MS = 200;
const RETRYABLE = new Set(['40001', '40P01']);

// int8 (count(*), bigint columns) and numeric (sum of a bigint) read as JS numbers, as SQLite gives them.
const NUMBERS = { to: 20, from: [20, 1700], serialize: (n: number | bigint) => String(n), parse: (s: string) => Number(s) };

/** What is told of a transaction that was run more than once: committed in the end, or given up with its error. */
export interface TransactionRetries {
  transaction: string;
  isolation: Isolation;
  retries: number;
  committed: boolean;
  duration_ms: number;
  code?: string;
}
let retriesListener: ((retries: TransactionRetries) => void) | undefined;

/** Who is told about every transaction that was re-run (src/index.ts logs it). */
export function reportTransactionRetries(listener: (retries: TransactionRetries) => void): void {
  retriesListener = listener;
}

/** The transaction the current async context runs in; work it started may outlive it (then `open` is false). */
const contexts = new AsyncLocalStorage<{ open: boolean; isolation: Isolation; name: string }>();
const insideTransaction = () => contexts.getStore()?.open === true;
/** The sessions of root (pool) handles: a statement through them inside a transaction is a mistake. */
const rootSessions = new WeakSet<object>();

let sessionsAdapted = false;

/**
 * Adapts Drizzle's postgres.js session, once, when the first pool opens (not at import): every session, the pool's
 * and each transaction's (Drizzle makes those itself), names its prepared statements and refuses the pool's handle
 * inside a transaction.
 */
function adaptSessions() {
  if (sessionsAdapted) return;
  sessionsAdapted = true;
  const session: any = PostgresJsSession.prototype;
  const prepareQuery = session.prepareQuery;
  session.prepareQuery = function (this: object, query: unknown, fields: unknown, name: string | undefined, ...rest: unknown[]) {
    // `prepared(db, name, …)` names the statement, so PostgreSQL parses and plans it once per connection.
    const q = prepareQuery.call(this, query, fields, name ?? preparingName(), ...rest);
    if (rootSessions.has(this)) {
      for (const method of ['execute', 'all'] as const) {
        const run = q[method];
        q[method] = (...args: unknown[]) => {
          if (insideTransaction()) throw new Error('db used inside withTransaction: pass the transaction (tx) down instead');
          return run.apply(q, args);
        };
      }
    }
    return q;
  };
}

/** How long to wait for the server before opening, and who is told once it is being waited for. */
export interface PostgresWait {
  seconds: number;
  waiting?: (problem: string) => void;
}

function codeOf(err: unknown): string | undefined {
  for (let e: any = err; e; e = e.cause) if (typeof e.code === 'string') return e.code;
  return undefined;
}

/**
 * Opens a pool on `url`, applies the pending migrations (under their lock) and returns the `Db`. `max`: the pool's
 * connections, at least 2 (the migration and boot locks hold one while the work runs through another);
 * `idleSeconds`: how long an unused one stays open (default: until closed); `migrated`: told how many migrations
 * this call applied; `wait`: first wait that long for a server still starting (src/db/postgres/reach.ts);
 * `lockTimeoutSeconds`: how long to wait for the migration lock (BOOT_LOCK_TIMEOUT_SECONDS). A database that cannot be
 * reached or migrated throws, the pool closed.
 */
export async function openPostgres(
  url: string,
  options: { max?: number; idleSeconds?: number; migrated?: (applied: number) => void; wait?: PostgresWait; lockTimeoutSeconds?: number } = {},
): Promise<Db> {
  if (options.wait) await reachPostgres(url, options.wait.seconds, options.wait.waiting);
  adaptSessions();
  const max = Math.max(2, options.max ?? 10);
  const client = postgres(url, { max, idle_timeout: options.idleSeconds, onnotice: () => {}, types: { numbers: NUMBERS } });
  try {
    const applied = await migratePostgres(client, options.lockTimeoutSeconds);
    options.migrated?.(applied);
  } catch (err) {
    await client.end({ timeout: 1 });
    throw err;
  }
  const dialect = new PgDialect();
  const rootSession = new PostgresJsSession(client, dialect, undefined);
  rootSessions.add(rootSession);
  const db: any = new PgDatabase(dialect, rootSession, undefined);
  db.$client = client;

  /** A transaction handle Drizzle made, registered so src/db's functions know its engine, then handed to `fn`. */
  const enter =
    <T>(fn: (tx: Tx) => Promise<T>) =>
    (tx: any) => {
      registerEngine(tx, engine);
      return fn(tx);
    };
  // Every transaction's statements: built (and named) once on the first, run through each one's own connection.
  const transactionStatements = {};
  const engine: Engine = {
    dialect: 'postgres',
    sql: client,
    statements: {
      owner: (handle) => (handle === db ? db : transactionStatements),
      bind<T>(statement: T, handle: DbOrTx): T {
        if (handle === db) return statement;
        const client = (handle as any).session.client;
        if ((statement as any).client === client) return statement;
        // Drizzle's prepared query holds its SQL, parameters and result mapping; only the connection differs.
        return Object.assign(Object.create(Object.getPrototypeOf(statement)), statement, { client });
      },
    },
    execute: (handle: any, query: SQL) => {
      if (handle === db && insideTransaction()) throw new Error('db used inside withTransaction: pass the transaction (tx) down instead');
      return handle.execute(query);
    },
    transaction: async <T>(handle: DbOrTx, options: TransactionOptions, fn: (tx: Tx) => Promise<T>): Promise<T> => {
      const h: any = handle;
      const name = options.name ?? 'transaction';
      // A tx: Drizzle's nested transaction, a savepoint that rolls back on its own; the outer transaction retries.
      if (h !== db) {
        const outer = contexts.getStore();
        // A part that needs serializable cannot get it from a read committed transaction: say so where it is written.
        if (options.isolation === 'serializable' && outer?.isolation === 'read committed')
          throw new Error(`${name} needs a serializable transaction but runs inside ${outer.name} (read committed)`);
        return h.transaction(enter(fn));
      }
      if (insideTransaction()) throw new Error('withTransaction(db) inside a transaction: pass the transaction (tx) down instead');
      const started = performance.now();
      for (let attempt = 1; ; attempt++) {
        try {
          const context = { open: true, isolation: options.isolation, name };
          let result: T;
          try {
            // `begin isolation level …` in one statement: Drizzle's transaction() sends a `set transaction` after it.
            result = await contexts.run(
              context,
              () =>
                client.begin(`isolation level ${options.isolation}`, (connection: any) =>
                  enter(fn)(new PostgresJsTransaction(dialect, new PostgresJsSession(connection, dialect, undefined), undefined) as any),
                ) as Promise<T>,
            );
          } finally {
            context.open = false;
          }
          if (attempt > 1)
            retriesListener?.({
              transaction: name,
              isolation: options.isolation,
              retries: attempt - 1,
              committed: true,
              duration_ms: Math.round(performance.now() - started),
            });
          return result;
        } catch (err) {
          const code = codeOf(err) ?? '';
          if (!RETRYABLE.has(code)) throw err;
          if (performance.now() - started > RETRY_BUDGET_MS) {
            retriesListener?.({
              transaction: name,
              isolation: options.isolation,
              retries: attempt - 1,
              committed: false,
              duration_ms: Math.round(performance.now() - started),
              code,
            });
            throw err;
          }
          // Jittered, growing: transactions that collided once should not collide again in lockstep.
          await Bun.sleep(Math.random() * Math.min(MAX_RETRY_PAUSE_MS, 5 * 2 ** attempt));
        }
      }
    },
  };
  registerEngine(db, engine);
  return db;
}

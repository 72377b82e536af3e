import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import { entityKind, type SQL } from 'drizzle-orm';
import { BetterSQLiteSession, PreparedQuery } from 'drizzle-orm/better-sqlite3/session';
import { BaseSQLiteDatabase, SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { createTableRelationsHelpers, extractTablesRelationalConfig } from 'drizzle-orm';
import { engineOf, registerEngine, sqliteOf, type TransactionOptions } from './engine.ts';
import * as schema from './schema/index.ts';

/**
 * The async data layer over one better-sqlite3 connection.
 *
 * better-sqlite3 runs a statement synchronously, so an `await` between two statements of a transaction would let
 * another request's statements run on the same connection: inside the transaction (its writes would commit or roll
 * back with ours) and reading our uncommitted rows. So each connection has one gate:
 * - `withTransaction` takes it (`BEGIN IMMEDIATE`), runs the callback with `tx`, and releases it on COMMIT/ROLLBACK;
 * - every statement issued through `db` while another request holds the gate waits for it (readers never see
 *   uncommitted rows; single-statement writes never join someone else's transaction);
 * - statements through `tx` run at once, but only from inside the transaction that owns the gate;
 * - `db` used from inside a transaction throws: it would deadlock here, and run outside the transaction on a
 *   pooled driver (PostgreSQL). Pass `tx` down.
 * Which request holds the gate is known through AsyncLocalStorage. Statements run synchronously when the gate is
 * free, so the common case costs no extra turn of the event loop.
 */

/**
 * The query builders services use, typed as SQLite's (the tables are SQLite's) and run by either engine's dialect.
 * The run result is unknown: a write that needs to know what it changed says `.returning(…)`. Transactions go
 * through withTransaction, never Drizzle's own; raw SQL and the connection through src/db's functions.
 */
type Builders = Pick<
  BaseSQLiteDatabase<'async', unknown, typeof schema>,
  'select' | 'selectDistinct' | 'insert' | 'update' | 'delete' | '$count' | 'with' | '$with'
>;

/** The database (either engine). On SQLite every statement waits while another request's transaction is open. */
export type Db = Builders & { readonly [kind]: 'db' };
/** A transaction: only valid inside the `withTransaction` callback that received it. */
export type Tx = Builders & { readonly [kind]: 'tx' };
/** Functions that run one or more statements and need no transaction of their own take either. */
export type DbOrTx = Db | Tx;

declare const kind: unique symbol;

interface Transaction {
  open: boolean;
  depth: number;
}

/** The per-connection gate: which transaction holds it, and a promise that settles when it is released. */
class Gate {
  holder: Transaction | null = null;
  /** When it was last freed, and since when transactions have followed each other back to back (see takeTurn). */
  freedAt = 0;
  streakFrom = 0;
  private released: Promise<void> = Promise.resolve();
  private release: () => void = () => {};

  /** Undefined when the caller may run now; otherwise a promise to wait on before checking again. */
  busyFor(context: Transaction | undefined): Promise<void> | undefined {
    if (this.holder === null || this.holder === context) return undefined;
    return this.released;
  }

  take(t: Transaction) {
    this.holder = t;
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  free() {
    this.holder = null;
    this.freedAt = performance.now();
    this.release();
  }
}

const contexts = new AsyncLocalStorage<Transaction>();

/** The transaction the current async context runs in, if it is still open. */
function currentTransaction(): Transaction | undefined {
  const t = contexts.getStore();
  return t?.open ? t : undefined;
}

const gates = new WeakMap<Database.Database, Gate>();

/**
 * SQLITE_SYNCHRONOUS=full: the connection commits without syncing (synchronous=NORMAL, so the write lock is held
 * for the writes only), and each write syncs the WAL file before it resolves, off the event loop and shared by the
 * commits that wait together (src/db/client.ts walSyncer). A write is answered only once it is on disk, as with
 * synchronous=FULL; the difference is that another reader may see it a moment before (lost only with the power).
 */
const walSyncs = new WeakMap<Database.Database, () => Promise<void>>();
const durable = (sqlite: Database.Database) => walSyncs.get(sqlite)?.();

/** Whether `db` syncs every write before it resolves (SQLITE_SYNCHRONOUS=full): `full`, else SQLite's own setting. */
export function sqliteDurability(db: Db): 'full' | 'normal' | 'off' | 'extra' | undefined {
  const sqlite = sqliteOf(db);
  if (!sqlite) return undefined;
  if (walSyncs.has(sqlite)) return 'full';
  return (['off', 'normal', 'full', 'extra'] as const)[Number(sqlite.pragma('synchronous', { simple: true }))];
}

/**
 * Another process (a worker of several, an operator command) may hold SQLite's write lock. busy_timeout would wait
 * for it by sleeping the thread, and so the whole event loop; a write instead tries without waiting and, while the
 * lock is held, tries again after an `await`, up to the same 5 s as busy_timeout (openDatabase) for everything else.
 */
const BUSY_TIMEOUT_MS = 5000;
const MAX_PAUSE_MS = 2;
const LOCKED = Symbol('locked');

/** `attempt` run with busy_timeout 0: its result, or LOCKED while another connection writes and `deadline` is ahead. */
function tryWithoutWaiting<T>(sqlite: Database.Database, attempt: () => T, deadline: number): T | typeof LOCKED {
  // SQLite applies this pragma when the statement is compiled, so a prepared one would not: exec, ~2 µs each.
  sqlite.exec('pragma busy_timeout = 0');
  try {
    return attempt();
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY' && performance.now() < deadline) return LOCKED;
    throw err;
  } finally {
    sqlite.exec(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/** Connections whose file other processes write too (WORKERS > 1): their transactions take turns (takeTurn). */
const sharedFiles = new WeakSet<Database.Database>();

/** Marks `db`'s file as written by several processes of the service (src/cluster.ts); nothing on PostgreSQL. */
export function shareWriteLock(db: Db): void {
  const sqlite = sqliteOf(db);
  if (sqlite) sharedFiles.add(sqlite);
}

/**
 * A process whose queue of transactions is never empty would hold the write lock almost without a gap, and another
 * process polling for it (beginImmediate) would wait until its 5 s ran out. So after TURN_MS of transactions back to
 * back, the next one first leaves the lock free for a moment, longer than the others' polling pause.
 */
const TURN_MS = 20;
async function takeTurn(sqlite: Database.Database, gate: Gate): Promise<void> {
  if (!sharedFiles.has(sqlite)) return;
  const now = performance.now();
  if (now - gate.freedAt > 0.5) gate.streakFrom = now;
  else if (now - gate.streakFrom > TURN_MS) {
    await Bun.sleep(MAX_PAUSE_MS + 1);
    gate.streakFrom = performance.now();
  }
}

/**
 * `BEGIN IMMEDIATE` for `t` once this connection's gate is free, waiting for another process's write lock without
 * blocking the event loop. `t` takes the gate in the same synchronous step as the BEGIN that succeeds: while another
 * process holds the lock, this process's reads go on (the requests that will join a group commit get ready).
 */
async function beginImmediate(sqlite: Database.Database, gate: Gate, t: Transaction): Promise<void> {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    for (let wait = gate.busyFor(undefined); wait; wait = gate.busyFor(undefined)) await wait;
    if (tryWithoutWaiting(sqlite, () => sqlite.exec('begin immediate'), deadline) !== LOCKED) return gate.take(t);
    await Bun.sleep(pause);
  }
}
const txOf = new WeakMap<object, Tx>();

/**
 * Undefined when this context may use the connection now through `db` (or `tx` when `inside`); otherwise a promise
 * to await before asking again. Callers check and run in one synchronous step, so nobody slips in between.
 */
function admit(gate: Gate, inside: boolean): Promise<void> | undefined {
  const t = currentTransaction();
  if (inside) {
    if (!t || gate.holder !== t) throw new Error('a transaction handle was used outside its withTransaction callback');
    return undefined;
  }
  if (t && gate.holder === t) throw new Error('db used inside withTransaction: pass the transaction (tx) down instead');
  return gate.busyFor(undefined);
}

// Drizzle's better-sqlite3 query, made async: the same statement and row mapping, run once admitted.
const SyncPreparedQuery: new (...args: any[]) => any = PreparedQuery;
const sync = SyncPreparedQuery.prototype;
class GatedPreparedQuery extends SyncPreparedQuery {
  static readonly [entityKind]: string = 'GatedPreparedQuery';
  declare gate: Gate;
  declare inside: boolean;
  // Drizzle's all() calls this.values(): the synchronous twin sees the synchronous values().
  private syncView?: object;

  private async admitted(method: 'run' | 'all' | 'get' | 'values', p?: Record<string, unknown>): Promise<any> {
    this.syncView ??= Object.create(this, { values: { value: sync.values } });
    const run = () => sync[method].call(this.syncView, p);
    // A write through `db` is its own transaction: it may meet another process's write lock (see waitOutLocks).
    const writes = !this.inside && !(this as any).stmt.readonly;
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
      for (let wait = admit(this.gate, this.inside); wait; wait = admit(this.gate, this.inside)) await wait;
      if (!writes) return run();
      const sqlite = (this as any).stmt.database as Database.Database;
      const result = tryWithoutWaiting(sqlite, run, deadline);
      if (result !== LOCKED) {
        await durable(sqlite);
        return result;
      }
      await Bun.sleep(pause);
    }
  }
  run(p?: Record<string, unknown>) {
    return this.admitted('run', p);
  }
  all(p?: Record<string, unknown>) {
    return this.admitted('all', p);
  }
  get(p?: Record<string, unknown>) {
    return this.admitted('get', p);
  }
  values(p?: Record<string, unknown>) {
    return this.admitted('values', p);
  }
}

class GatedSession extends BetterSQLiteSession<any, any> {
  static override readonly [entityKind]: string = 'GatedSession';
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly sqlite: Database.Database,
    dialect: SQLiteAsyncDialect,
    relational: any,
    private readonly gate: Gate,
    private readonly inside: boolean,
  ) {
    super(sqlite, dialect as any, relational);
  }

  override prepareQuery(query: any, fields: any, executeMethod: any, isResponseInArrayMode: boolean, customResultMapper?: any): any {
    // One better-sqlite3 statement per SQL text: preparing costs more than running a small query.
    let stmt = this.statements.get(query.sql);
    if (!stmt) this.statements.set(query.sql, (stmt = this.sqlite.prepare(query.sql)));
    // Drizzle switches a statement to raw (array) rows for mapped selects; reset it for raw SQL reads.
    if (stmt.reader && !fields && !customResultMapper) stmt.raw(false);
    const q = new GatedPreparedQuery(
      stmt,
      query,
      (this as any).logger,
      (this as any).cache,
      undefined,
      undefined,
      fields,
      executeMethod,
      isResponseInArrayMode,
      customResultMapper,
    );
    (q as any).mode = 'async';
    q.gate = this.gate;
    q.inside = this.inside;
    return q;
  }

  override transaction(): never {
    throw new Error('use withTransaction(db, async (tx) => …) from src/db');
  }
}

/**
 * The async `db` over an open better-sqlite3 connection (and its `tx` twin, used by withTransaction). `syncWal`:
 * makes every write so far durable (see walSyncs); without it, commits are as durable as the connection's pragma.
 */
export function asyncDatabase(sqlite: Database.Database, syncWal?: () => Promise<void>): Db {
  if (syncWal) walSyncs.set(sqlite, syncWal);
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  const relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  const dialect = new SQLiteAsyncDialect();
  const gate = new Gate();
  gates.set(sqlite, gate);
  // better-sqlite3 runs a statement that returns no rows with run(), never all(): ask the statement which it is.
  const readers = new Map<string, boolean>();
  const returnsRows = (query: SQL) => {
    const text = dialect.sqlToQuery(query).sql;
    let reader = readers.get(text);
    if (reader === undefined) readers.set(text, (reader = sqlite.prepare(text).reader));
    return reader;
  };
  const execute = async (handle: any, query: SQL) => {
    if (returnsRows(query)) return handle.all(query);
    await handle.run(query);
    return [];
  };
  const make = (inside: boolean) => {
    const d = new BaseSQLiteDatabase('async', dialect, new GatedSession(sqlite, dialect, relational, gate, inside) as any, relational as any) as any;
    d.$client = sqlite;
    registerEngine(d, { dialect: 'sqlite', sqlite, execute });
    return d;
  };
  const db = make(false) as Db;
  txOf.set(db, make(true) as Tx);
  return db;
}

/**
 * Run `fn` in one transaction: `BEGIN IMMEDIATE`, COMMIT when it resolves, ROLLBACK when it throws. The gate is held
 * throughout, so an `await` inside never lets another request's statements in. Called again with the `tx` it
 * received (a service composed into a larger transaction), it opens a savepoint that rolls back on its own.
 * `options.isolation`: on PostgreSQL, the isolation level (see Isolation: the weakest that keeps the transaction's
 * invariant, written beside the call); a serializable one is re-run on a serialization failure, either on a deadlock
 * (src/db/postgres/client.ts). On a `tx` it is the outer transaction's; asking serializable inside a read committed
 * one throws. SQLite ignores it: BEGIN IMMEDIATE makes every transaction the only writer.
 */
export async function withTransaction<T>(dbOrTx: DbOrTx, options: TransactionOptions, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const engine = engineOf(dbOrTx);
  if (engine.dialect === 'postgres') return engine.transaction(dbOrTx, options, fn);
  const sqlite = engine.sqlite;
  const gate = gates.get(sqlite);
  const tx = txOf.get(dbOrTx) ?? (dbOrTx as Tx);
  if (!gate) throw new Error('not a database from openDatabase');
  const current = currentTransaction();
  if (isTx(dbOrTx)) {
    if (!current || gate.holder !== current) throw new Error('a transaction handle was used outside its withTransaction callback');
    const name = `sp${++current.depth}`;
    sqlite.exec(`savepoint ${name}`);
    try {
      const result = await fn(tx);
      sqlite.exec(`release ${name}`);
      return result;
    } catch (err) {
      // Unless SQLite already rolled the whole transaction back (a full disk, an I/O error): then say why, not that the savepoint is gone.
      if (sqlite.inTransaction) sqlite.exec(`rollback to ${name}; release ${name}`);
      throw err;
    } finally {
      current.depth--;
    }
  }
  if (current && gate.holder === current) throw new Error('withTransaction(db) inside a transaction: pass the transaction (tx) down instead');
  const t: Transaction = { open: true, depth: 0 };
  await takeTurn(sqlite, gate);
  await beginImmediate(sqlite, gate, t);
  let result: T;
  try {
    try {
      result = await contexts.run(t, () => fn(tx));
      sqlite.exec('commit');
    } catch (err) {
      if (sqlite.inTransaction) sqlite.exec('rollback');
      throw err;
    }
  } finally {
    t.open = false;
    gate.free();
  }
  // Outside the gate: the next transaction runs while this one's commit reaches the disk.
  await durable(sqlite);
  return result;
}

/** A caller of withGroupCommit waiting for, or running in, a group's transaction. */
interface Member {
  fn: (tx: Tx) => Promise<unknown>;
  ahead?: Ahead;
  done: PromiseWithResolvers<unknown>;
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

/**
 * Run for every caller of a group of several, in their order, once the group's transaction has begun and before any
 * caller's `fn`: to start work that `fn` will want (on other threads) while the callers before it write. It may read; it
 * must not write, and what it prepares is a guess `fn` checks. `group` is shared by the group's `ahead` calls
 * (a caller's guess depends on those before it: the folio it will get). Its errors are ignored: `fn` runs anyway.
 */
export type Ahead = (tx: Tx, group: Map<string, unknown>) => Promise<void>;

/** At most this many callers share one commit, so that a group never holds the write lock for long. */
const GROUP_MAX = 16;
const groups = new WeakMap<Database.Database, { waiting: Member[]; running: boolean }>();

/**
 * withTransaction for a hot write path (issuing): callers that arrive while a group's transaction runs share the
 * next one. Each runs in its own savepoint, so its error rolls back only its own writes and reaches only its caller;
 * one COMMIT, and one WAL sync, makes the group durable before any caller's promise resolves. On this engine a
 * commit costs more than the writes of an invoice; a group is at most GROUP_MAX callers, so another process waiting
 * for the lock gets its turn. `ahead` (see Ahead) lets a caller start work on other threads while the callers before
 * it run. PostgreSQL: withTransaction with `options`, one transaction per caller, and no `ahead` (docs/decisions.md,
 * "Isolation per transaction": the series row's lock, read committed, queues the issuers).
 */
export async function withGroupCommit<T>(db: Db, options: TransactionOptions, fn: (tx: Tx) => Promise<T>, ahead?: Ahead): Promise<T> {
  const engine = engineOf(db);
  if (engine.dialect === 'postgres') return engine.transaction(db, options, fn);
  let group = groups.get(engine.sqlite);
  if (!group) groups.set(engine.sqlite, (group = { waiting: [], running: false }));
  const member: Member = { fn, ahead, done: Promise.withResolvers() };
  group.waiting.push(member);
  if (!group.running) void runGroups(db, engine.sqlite, group);
  return member.done.promise as Promise<T>;
}

async function runGroups(db: Db, sqlite: Database.Database, group: { waiting: Member[]; running: boolean }): Promise<void> {
  group.running = true;
  try {
    while (group.waiting.length > 0) {
      let members: Member[] = [];
      try {
        // SQLite only: its one writer at a time is every isolation (the options are PostgreSQL's).
        await withTransaction(db, { isolation: 'serializable', name: 'group commit' }, async (tx) => {
          // Who waits once the lock is had is the group: their `ahead` run before any `fn`.
          members = group.waiting.splice(0, GROUP_MAX);
          const shared = new Map<string, unknown>();
          // A group of one has nothing to overlap its work with.
          if (members.length > 1) for (const member of members) await member.ahead?.(tx, shared).catch(() => undefined);
          for (const member of members) {
            try {
              member.outcome = { ok: true, value: await withTransaction(tx, { isolation: 'serializable' }, member.fn) };
            } catch (error) {
              member.outcome = { ok: false, error };
              // Some errors (a full disk, I/O) make SQLite roll the whole transaction back: the others' writes are gone.
              if (!sqlite.inTransaction) throw error;
            }
          }
        });
        for (const m of members) {
          if (m.outcome?.ok) m.done.resolve(m.outcome.value);
          else m.done.reject(m.outcome?.error);
        }
      } catch (error) {
        // Nothing of this group was written: a caller whose own work failed hears its own error, the others this one.
        // No group yet: BEGIN failed (the lock not had within its time), and those waiting hear why.
        if (members.length === 0) members = group.waiting.splice(0, GROUP_MAX);
        for (const m of members) m.done.reject(m.outcome && !m.outcome.ok ? m.outcome.error : error);
      }
    }
  } finally {
    group.running = false;
  }
}

function isTx(d: DbOrTx): d is Tx {
  return !txOf.has(d);
}

/**
 * Run a synchronous better-sqlite3 call once this context may use the connection (see admit). `writes`: the call
 * may write, so outside a transaction it resolves once the write is durable (see walSyncs).
 */
export async function gated<T>(dbOrTx: DbOrTx, run: () => T, writes = false): Promise<T> {
  const sqlite = sqliteOf(dbOrTx);
  const gate = sqlite && gates.get(sqlite);
  if (!gate) throw new Error('not a database from openDatabase (SQLite)');
  const inside = isTx(dbOrTx);
  for (let wait = admit(gate, inside); wait; wait = admit(gate, inside)) await wait;
  if (inside || !writes) return run();
  const result = run();
  await durable(sqlite);
  return result;
}

import { afterEach, beforeEach, describe, expect, spyOn, test } from 'bun:test';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncDatabase, sqliteDurability } from '../../src/db/connection.ts';
import { closeDatabase, openDatabase, withGroupCommit, withTransaction, type DbOrTx } from '../../src/db/index.ts';
import { tenants } from '../../src/db/schema/index.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

function tenant(id: string) {
  return { id, rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimenFiscal: '601', codigoPostal: '42501', createdAt: new Date().toISOString() };
}
const names = async (db: DbOrTx) => (await db.select({ id: tenants.id }).from(tenants)).map((t) => t.id).sort();

// SQLite-only: the gate that serialises one better-sqlite3 connection's transactions (src/db/connection.ts).
describe('withTransaction on one SQLite connection', () => {
  test('commits what the callback wrote and returns its value', async () => {
    const db = openDatabase(':memory:');
    const value = await withTransaction(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('t1'));
      await tick();
      return 42;
    });
    expect(value).toBe(42);
    expect(await names(db)).toEqual(['t1']);
  });

  test('rolls back everything when the callback throws, after an await', async () => {
    const db = openDatabase(':memory:');
    const failed = withTransaction(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('t1'));
      await tick();
      throw new Error('boom');
    });
    expect(failed).rejects.toThrow('boom');
    await failed.catch(() => {});
    expect(await names(db)).toEqual([]);
  });

  test('an await inside never lets another writer in: transactions run one after the other', async () => {
    const db = openDatabase(':memory:');
    const log: string[] = [];
    const one = (id: string) =>
      withTransaction(db, { isolation: 'serializable' }, async (tx) => {
        log.push(`begin ${id}`);
        await tx.insert(tenants).values(tenant(id));
        await tick();
        log.push(`end ${id}`);
      });
    await Promise.all([one('a'), one('b'), one('c')]);
    expect(log).toEqual(['begin a', 'end a', 'begin b', 'end b', 'begin c', 'end c']);
    expect(await names(db)).toEqual(['a', 'b', 'c']);
  });

  test('a single-statement write from another request waits for the open transaction and does not roll back with it', async () => {
    const db = openDatabase(':memory:');
    let began!: () => void;
    const started = new Promise<void>((resolve) => (began = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const failing = withTransaction(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('inside'));
      began();
      await held;
      throw new Error('roll back');
    });
    await started;
    let insertedOutside = false;
    const outside = db
      .insert(tenants)
      .values(tenant('outside'))
      .then(() => (insertedOutside = true));
    await tick();
    expect(insertedOutside).toBe(false);
    release();
    await failing.catch(() => {});
    await outside;
    expect(await names(db)).toEqual(['outside']);
  });

  test('readers outside never see uncommitted rows', async () => {
    const db = openDatabase(':memory:');
    let seenDuring: string[] | undefined;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writer = withTransaction(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('new'));
      await held;
    });
    const reader = names(db).then((n) => (seenDuring = n));
    await tick();
    expect(seenDuring).toBeUndefined(); // still waiting for the writer
    release();
    await Promise.all([writer, reader]);
    expect(seenDuring).toEqual(['new']);
  });

  test('nesting with tx is a savepoint: the inner failure rolls back only the inner writes', async () => {
    const db = openDatabase(':memory:');
    await withTransaction(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('outer'));
      await withTransaction(tx, { isolation: 'serializable' }, async (inner) => {
        await inner.insert(tenants).values(tenant('inner'));
        throw new Error('inner fails');
      }).catch(() => {});
      await withTransaction(tx, { isolation: 'serializable' }, async (inner) => inner.insert(tenants).values(tenant('kept')));
    });
    expect(await names(db)).toEqual(['kept', 'outer']);
  });

  test('using db (not tx) inside a transaction is an error, not a deadlock', async () => {
    const db = openDatabase(':memory:');
    await expect(withTransaction(db, { isolation: 'serializable' }, async () => await db.select().from(tenants))).rejects.toThrow(
      'pass the transaction (tx) down',
    );
    await expect(
      withTransaction(db, { isolation: 'serializable' }, async () => withTransaction(db, { isolation: 'serializable' }, async () => 1)),
    ).rejects.toThrow('pass the transaction (tx) down');
    // The gate was released: the database still works.
    await db.insert(tenants).values(tenant('after'));
    expect(await names(db)).toEqual(['after']);
  });

  test('a transaction handle used after its callback ended is an error', async () => {
    const db = openDatabase(':memory:');
    const leaked = await withTransaction(db, { isolation: 'serializable' }, async (tx) => tx);
    await expect(Promise.resolve(leaked.select().from(tenants).where(eq(tenants.id, 'x')))).rejects.toThrow('outside its withTransaction callback');
  });
});

// Another process holding SQLite's write lock (a worker of several, an operator command): here, a second connection.
describe('a write lock held by another connection', () => {
  test('BEGIN IMMEDIATE and a single write through db wait for it without blocking the event loop or reads, then succeed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfdi-busy-'));
    const path = join(dir, 'busy.sqlite');
    const db = openDatabase(path);
    const other = new Database(path);
    try {
      other.exec('begin immediate');
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 1);
      const inTransaction = withTransaction(db, { isolation: 'serializable' }, async (tx) => void (await tx.insert(tenants).values(tenant('t1'))));
      const single = db.insert(tenants).values(tenant('t2'));
      await Bun.sleep(100);
      const ticksWhileLocked = ticks; // a thread asleep in busy_timeout would have run no timer
      // The waiting transaction holds nothing of this connection yet: a read answers (what the other has not committed unseen).
      expect(await Promise.race([names(db), Bun.sleep(50).then(() => 'still waiting')])).toEqual([]);
      other.exec('commit');
      await Promise.all([inTransaction, single]);
      clearInterval(ticking);
      expect(ticksWhileLocked).toBeGreaterThan(0);
      expect(await names(db)).toEqual(['t1', 't2']);
    } finally {
      other.close();
      await closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('SQLITE_SYNCHRONOUS=full: a write resolves only once its WAL sync has; the gate is free meanwhile, reads never wait', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfdi-walsync-'));
    const path = join(dir, 'sync.sqlite');
    await closeDatabase(openDatabase(path, 'normal')); // migrated
    const sqlite = new Database(path);
    const syncs: (() => void)[] = [];
    const db = asyncDatabase(sqlite, () => new Promise<void>((resolve) => syncs.push(resolve)));
    try {
      let answered = false;
      const first = withTransaction(db, { isolation: 'serializable' }, async (tx) => void (await tx.insert(tenants).values(tenant('t1')))).then(
        () => (answered = true),
      );
      await tick();
      expect(syncs.length).toBe(1);
      expect(answered).toBe(false);
      // Committed and the gate released: the next transaction and a single write run while the first one's sync waits.
      const second = withTransaction(db, { isolation: 'serializable' }, async (tx) => void (await tx.insert(tenants).values(tenant('t2'))));
      const single = db.insert(tenants).values(tenant('t3')).execute(); // a builder runs when executed
      await tick();
      expect(syncs.length).toBe(3);
      expect(await names(db)).toEqual(['t1', 't2', 't3']);
      expect(syncs.length).toBe(3); // the read asked for none
      expect(answered).toBe(false);
      for (const resolve of syncs) resolve();
      await Promise.all([first, second, single]);
      expect(answered).toBe(true);
    } finally {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('SQLITE_SYNCHRONOUS=full syncs the WAL itself (SQLite commits with NORMAL); normal leaves it to checkpoints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfdi-walsync-'));
    try {
      for (const [setting, durability] of [
        ['full', 'full'],
        ['normal', 'normal'],
      ] as const) {
        const db = openDatabase(join(dir, `${setting}.sqlite`), setting);
        expect(sqliteDurability(db)).toBe(durability);
        await withTransaction(db, { isolation: 'serializable' }, async (tx) => void (await tx.insert(tenants).values(tenant('t1'))));
        await db.insert(tenants).values(tenant('t2'));
        expect(await names(db)).toEqual(['t1', 't2']);
        await closeDatabase(db);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// SQLite-only: callers that arrive while one transaction runs share the next commit (issuing's hot path).
describe('withGroupCommit on one SQLite connection', () => {
  // A group closes after TURN_MS (20 ms): the clock stands still, so a slow machine cannot split the callers here.
  let clock: ReturnType<typeof spyOn>;
  beforeEach(() => {
    const frozen = performance.now();
    clock = spyOn(performance, 'now').mockImplementation(() => frozen);
  });
  afterEach(() => clock.mockRestore());

  /** The connection's BEGIN IMMEDIATEs, counted. */
  function countBegins(db: ReturnType<typeof openDatabase>) {
    const sqlite = (db as unknown as { $client: Database.Database }).$client;
    const exec = sqlite.exec;
    const counter = { begins: 0 };
    sqlite.exec = (source: string) => {
      if (/^begin immediate/i.test(source)) counter.begins++;
      return exec.call(sqlite, source);
    };
    return counter;
  }

  /** Holds the connection's transaction until the returned function is called. */
  async function holdTransaction(db: ReturnType<typeof openDatabase>) {
    const release = Promise.withResolvers<void>();
    const began = Promise.withResolvers<void>();
    const held = withTransaction(db, { isolation: 'serializable' }, async () => {
      began.resolve();
      await release.promise;
    });
    await began.promise;
    return async () => {
      release.resolve();
      await held;
    };
  }

  test('callers waiting together share one transaction; each gets its own value once the group is committed', async () => {
    const db = openDatabase(':memory:');
    const release = await holdTransaction(db);
    const counter = countBegins(db);
    const calls = ['a', 'b', 'c'].map((id) =>
      withGroupCommit(db, { isolation: 'serializable' }, async (tx) => {
        await tx.insert(tenants).values(tenant(id));
        await tick();
        return id.toUpperCase();
      }),
    );
    await release();
    expect(await Promise.all(calls)).toEqual(['A', 'B', 'C']);
    expect(counter.begins).toBe(1);
    expect(await names(db)).toEqual(['a', 'b', 'c']);
  });

  test('ahead runs for each caller of a group of several, in their order, before any fn, sharing one map; its errors are ignored', async () => {
    const db = openDatabase(':memory:');
    const release = await holdTransaction(db);
    const seen: string[] = [];
    const calls = ['a', 'b', 'c'].map((id) =>
      withGroupCommit(
        db,
        { isolation: 'serializable' },
        async (tx) => {
          seen.push(`fn ${id}`);
          await tx.insert(tenants).values(tenant(id));
          return id;
        },
        async (_tx, group) => {
          const position = (group.get('count') as number | undefined) ?? 0;
          group.set('count', position + 1);
          seen.push(`ahead ${id} ${position}`);
          if (id === 'b') throw new Error('a guess that went wrong');
        },
      ),
    );
    await release();
    expect(await Promise.all(calls)).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual(['ahead a 0', 'ahead b 1', 'ahead c 2', 'fn a', 'fn b', 'fn c']);
    expect(await names(db)).toEqual(['a', 'b', 'c']);
  });

  test('a group of one runs no ahead (nothing to overlap it with)', async () => {
    const db = openDatabase(':memory:');
    let aheads = 0;
    const value = await withGroupCommit(
      db,
      { isolation: 'serializable' },
      async () => 'alone',
      async () => void aheads++,
    );
    expect(value).toBe('alone');
    expect(aheads).toBe(0);
  });

  test('a caller that fails rolls back only its own writes and alone hears its error', async () => {
    const db = openDatabase(':memory:');
    const release = await holdTransaction(db);
    const ok = withGroupCommit(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('a'));
      return 'a';
    });
    const failing = withGroupCommit(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('b'));
      await tick();
      throw new Error('b refused');
    });
    const after = withGroupCommit(db, { isolation: 'serializable' }, async (tx) => {
      // It sees the earlier caller's write, not the failed one's.
      const seen = await names(tx);
      await tx.insert(tenants).values(tenant('c'));
      return seen;
    });
    failing.catch(() => {});
    await release();
    expect(await ok).toBe('a');
    expect(failing).rejects.toThrow('b refused');
    expect(await after).toEqual(['a']);
    expect(await names(db)).toEqual(['a', 'c']);
  });

  test('a group whose transaction fails writes nothing: every caller is refused', async () => {
    const db = openDatabase(':memory:');
    const release = await holdTransaction(db);
    const first = withGroupCommit(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('a'));
      return 'a';
    });
    // The same primary key: the second caller's insert fails (its own error) and the third one's rolls the whole
    // transaction back, as SQLite does on a full disk or an I/O error.
    const second = withGroupCommit(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('a'));
    });
    const third = withGroupCommit(db, { isolation: 'serializable' }, async (tx) => {
      await tx.insert(tenants).values(tenant('c'));
      (tx as unknown as { $client: Database.Database }).$client.exec('rollback');
      throw new Error('disk I/O error');
    });
    for (const p of [first, second, third]) p.catch(() => {});
    await release();
    expect(first).rejects.toThrow('disk I/O error');
    expect(second).rejects.toThrow(/UNIQUE|constraint/i);
    expect(third).rejects.toThrow('disk I/O error');
    expect(await names(db)).toEqual([]);
    // The connection is usable again.
    expect(await withGroupCommit(db, { isolation: 'serializable' }, async (tx) => (await tx.insert(tenants).values(tenant('d')), 'd'))).toBe('d');
    expect(await names(db)).toEqual(['d']);
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { BootLockTimeout, underBootLock } from '../../src/db/boot-lock.ts';
import { closeDatabase, postgresOf } from '../../src/db/engine.ts';
import { openConfiguredDatabase } from '../../src/db/open.ts';
import { BOOT_WORK_LOCK, MIGRATION_LOCK } from '../../src/db/postgres/advisory-locks.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';

/** Issue 37, item 4: the pool's size is the setting's, and the migration and boot locks are waited for only so long. */
describe.skipIf(!POSTGRES)('the PostgreSQL pool and the boot lock', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  beforeAll(async () => {
    scratch = await scratchDatabase();
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  test('DATABASE_POOL_SIZE sets the pool: at most that many connections however many queries wait', async () => {
    const db = await openConfiguredDatabase({ engine: 'postgres', url: scratch.url }, { poolSize: 3 });
    try {
      const sql = postgresOf(db)!;
      const pids = await Promise.all(Array.from({ length: 12 }, () => sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.05)`));
      expect(new Set(pids.map(([row]) => row!.pid)).size).toBe(3);
    } finally {
      await closeDatabase(db);
    }
  });

  test('a boot lock held elsewhere past the timeout: BootLockTimeout naming the lock, its holder and the setting; once free, the work runs', async () => {
    const db = await openConfiguredDatabase({ engine: 'postgres', url: scratch.url }, { poolSize: 2 });
    // A stuck instance: another session holds the lock.
    const other = postgres(scratch.url, { max: 1, onnotice: () => {} });
    try {
      const [held] = await other<{ pid: number }[]>`select pg_backend_pid() as pid, pg_advisory_lock(${BOOT_WORK_LOCK})`;
      const pid = held!.pid;
      let ran = false;
      const started = performance.now();
      const refused = await underBootLock(db, async () => void (ran = true), 1).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(BootLockTimeout);
      expect(performance.now() - started).toBeGreaterThan(900);
      expect(ran).toBe(false);
      const message = (refused as Error).message;
      expect(message).toStartWith(`the boot lock (PostgreSQL advisory lock ${BOOT_WORK_LOCK}) was not free within 1 s: held by PostgreSQL session ${pid}`);
      expect(message).toContain('BOOT_LOCK_TIMEOUT_SECONDS');
      expect(message).not.toContain('\n');
      // The connection that waited went back to the pool without the timeout: a later statement may wait on locks.
      const settings = await Promise.all([1, 2].map(() => postgresOf(db)!<{ lock_timeout: string }[]>`show lock_timeout`));
      expect(settings.map(([row]) => row!.lock_timeout)).toEqual(['0', '0']);
      await other`select pg_advisory_unlock(${BOOT_WORK_LOCK})`;
      expect(await underBootLock(db, async () => 'done', 1)).toBe('done');
    } finally {
      await other.end();
      await closeDatabase(db);
    }
  });
  test('a migration lock held elsewhere past the timeout: opening the database stops with BootLockTimeout naming that lock, its holder and the setting', async () => {
    const other = postgres(scratch.url, { max: 1, onnotice: () => {} });
    try {
      const [held] = await other<{ pid: number }[]>`select pg_backend_pid() as pid, pg_advisory_lock(${MIGRATION_LOCK})`;
      const started = performance.now();
      const refused = await openConfiguredDatabase({ engine: 'postgres', url: scratch.url }, { poolSize: 2, lockTimeoutSeconds: 1 }).catch(
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(BootLockTimeout);
      expect(performance.now() - started).toBeGreaterThan(900);
      const message = (refused as Error).message;
      expect(message).toStartWith(
        `the migration lock (PostgreSQL advisory lock ${MIGRATION_LOCK}) was not free within 1 s: held by PostgreSQL session ${held!.pid}`,
      );
      expect(message).toContain('BOOT_LOCK_TIMEOUT_SECONDS');
      await other`select pg_advisory_unlock(${MIGRATION_LOCK})`;
      const db = await openConfiguredDatabase({ engine: 'postgres', url: scratch.url }, { poolSize: 2, lockTimeoutSeconds: 1 });
      await closeDatabase(db);
    } finally {
      await other.end();
    }
  });
});

import { afterAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.ts';
import { unlessRunningElsewhere } from '../../src/db/advisory-lock.ts';
import { dialectOf } from '../../src/db/engine.ts';
import { sweepCsdExpiry } from '../../src/invoices/csds/service.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { periodicWork } from '../../src/periodic.ts';
import { coordinationFor } from '../../src/topology/one-database.ts';
import { closeDatabase, createTestApp, issuer, query, sharedTestDatabase } from '../helpers.ts';

// Two handles on one database stand for two instances whose schedulers tick together.
const opened: Db[] = [];
afterAll(async () => {
  for (const db of opened.splice(0)) await closeDatabase(db);
});
async function twoInstances() {
  const dbs = await sharedTestDatabase(2);
  opened.push(...dbs);
  return dbs as [Db, Db];
}

const DAY = 86_400_000;

/**
 * Both instances' rounds at once on PostgreSQL. SQLite is one process per database file: two connections in this
 * process cannot hold transactions at once (the synchronous driver's wait for the lock would block the very event
 * loop that must commit the other), so there the rounds run one after the other.
 */
async function tickTogether(db: Db, rounds: (() => Promise<unknown>)[]) {
  if (dialectOf(db) === 'postgres') await Promise.all(rounds.map((round) => round()));
  else for (const round of rounds) await round();
}
const dailyTasks = (db: Db) =>
  periodicWork({
    db,
    logger: createLogger('silent'),
    exclusive: coordinationFor(db, { heartbeat: { lastTickAt: () => Date.now(), intervalMs: 5000 } }).exclusive,
    drainJobs: async () => 0,
  }).daily;

describe('daily tasks on several instances', () => {
  test('two instances ticking together send one CSD expiry notice, and a second round the same day sends none', async () => {
    const [a, b] = await twoInstances();
    const t = await createTestApp({ db: a });
    const reg = await issuer(t, { keys: ['test'], csd: true });
    const soon = new Date(Date.now() + 10 * DAY).toISOString();
    const gone = new Date(Date.now() - DAY).toISOString();
    await t.exec(sql`update csds set valid_to = ${soon} where tenant_id = ${reg.tenant.id}`);
    const events = async () =>
      (await query<{ type: string }>(a, sql`select type from events where tenant_id = ${reg.tenant.id} and type like ${'csd.%'} order by id`)).map(
        (e) => e.type,
      );
    const sweep = async (db: Db) => {
      await dailyTasks(db)
        .find((task) => task.name === 'csd-expiry')!
        .run();
    };

    await tickTogether(a, [() => sweep(a), () => sweep(b)]);
    expect(await events()).toEqual(['csd.por_vencer']);
    await tickTogether(a, [() => sweep(b), () => sweep(a)]);
    expect(await events()).toEqual(['csd.por_vencer']);

    await t.exec(sql`update csds set valid_to = ${gone} where tenant_id = ${reg.tenant.id}`);
    await tickTogether(a, [() => sweep(a), () => sweep(b)]);
    await sweep(b);
    expect(await events()).toEqual(['csd.por_vencer', 'csd.vencido']);
  });

  test('the sweep is idempotent by itself: run twice at the same instant it changes nothing the second time', async () => {
    const [a] = await twoInstances();
    const t = await createTestApp({ db: a });
    const reg = await issuer(t, { keys: ['test'], csd: true });
    const now = new Date();
    await t.exec(sql`update csds set valid_to = ${new Date(now.getTime() - 1000).toISOString()} where tenant_id = ${reg.tenant.id}`);
    expect(await sweepCsdExpiry(a, now)).toEqual({ expired: 1, noticed: 0 });
    expect(await sweepCsdExpiry(a, now)).toEqual({ expired: 0, noticed: 0 });
  });

  test('a daily task running on one instance is skipped by another that ticks meanwhile (PostgreSQL); SQLite runs it as before', async () => {
    const [a, b] = await twoInstances();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const runs: string[] = [];
    const first = unlessRunningElsewhere(a, 'daily:test', async () => {
      runs.push('a');
      started();
      await held;
    });
    await running;
    const second = await unlessRunningElsewhere(b, 'daily:test', async () => void runs.push('b'));
    release();
    expect(await first).toBe(true);
    if (dialectOf(a) === 'postgres') {
      expect(second).toBe(false);
      expect(runs).toEqual(['a']);
      // The lock is released with the task: the next round runs wherever it ticks.
      expect(await unlessRunningElsewhere(b, 'daily:test', async () => void runs.push('b'))).toBe(true);
      expect(runs).toEqual(['a', 'b']);
    } else {
      expect(second).toBe(true);
      expect(runs).toEqual(['a', 'b']);
    }
  });
});

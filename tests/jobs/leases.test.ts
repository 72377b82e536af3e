import { afterAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.ts';
import { claimJobs, completeJob, enqueue, failJob, PermanentJobError, type Job } from '../../src/jobs/queue.ts';
import { createWorker, type JobHandler, type Worker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { dialectOf } from '../../src/db/engine.ts';
import { closeDatabase, exec, query, sharedTestDatabase, until } from '../helpers.ts';

// Leases across instances, on the suite's engine: two handles on one database stand for two instances. Leases are
// long in real time (the heartbeat's own timer never fires mid-test) and expire by moving the test's clock.
const T0 = new Date('2026-11-21T12:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE_MS = 60_000;
const silent = createLogger('silent');

const opened: Db[] = [];
afterAll(async () => {
  for (const db of opened.splice(0)) await closeDatabase(db);
});
async function instances(n: number) {
  const dbs = await sharedTestDatabase(n);
  opened.push(...dbs);
  return dbs;
}

const row = async (db: Db, id: string) =>
  (
    await query<{ status: string; locked_by: string | null; locked_until: string | null; attempts: number }>(
      db,
      sql`select status, locked_by, locked_until, attempts from jobs where id = ${id}`,
    )
  )[0]!;

/**
 * A handler whose runs hold until `release()`, then end as `outcome` says: a job in flight for as long as a test
 * needs. `recorded` lists the attempts whose completion (or give-up) work committed.
 */
function heldHandler(outcome: 'complete' | 'fail' = 'complete') {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const started: Job[] = [];
  const recorded: number[] = [];
  const handler: JobHandler = {
    run: async (job) => {
      started.push(job);
      await gate;
      if (outcome === 'fail') throw new PermanentJobError('rejected');
      return () => void recorded.push(job.attempts);
    },
    giveUp: (job) => () => void recorded.push(job.attempts),
  };
  return { handler, started, recorded, release: () => open() };
}

function worker(db: Db, workerId: string, handler: JobHandler, now: () => Date, leaseMs = LEASE_MS): Worker {
  return createWorker({ db, now, workerId, logger: silent, leaseMs, handlers: { t: handler } });
}

describe('job leases across instances', () => {
  test('the heartbeat extends the lease of a job in flight, so another instance cannot claim it', async () => {
    const [db, other] = await instances(2);
    let now = T0;
    const held = heldHandler();
    const a = worker(db!, 'a', held.handler, () => now);
    const id = await enqueue(db!, T0, { type: 't', payload: {} });
    const draining = a.drain();
    await until(() => held.started.length === 1, 'the job runs');
    expect((await row(db!, id)).locked_until).toBe(at(LEASE_MS).toISOString());
    now = at(LEASE_MS - 1000);
    expect(await a.heartbeat()).toBe(true);
    expect((await row(db!, id)).locked_until).toBe(at(2 * LEASE_MS - 1000).toISOString());
    // Past the first lease, within the extended one: nothing for the other instance to take.
    expect(await claimJobs(other!, { workerId: 'b', now: at(LEASE_MS + 1000), leaseMs: LEASE_MS, limit: 5 })).toEqual([]);
    held.release();
    expect(await draining).toBe(1);
    expect(await row(db!, id)).toMatchObject({ status: 'done', locked_by: null });
    expect(held.recorded).toEqual([1]);
    await a.stop();
  });

  test('while jobs run, the worker heartbeats by itself every leaseMs/3', async () => {
    const [db] = await instances(1);
    const held = heldHandler();
    const a = worker(db!, 'a', held.handler, () => new Date(), 150);
    const id = await enqueue(db!, new Date(), { type: 't', payload: {} });
    const draining = a.drain();
    await until(() => held.started.length === 1, 'the job runs');
    const first = held.started[0]!.lockedUntil!;
    await until(async () => (await row(db!, id)).locked_until! > first, 'the lease is extended');
    held.release();
    await draining;
    expect((await row(db!, id)).status).toBe('done');
    await a.stop();
  });

  test('a worker that stalled past its lease cannot complete the job another instance took over (fenced on worker and attempt)', async () => {
    const [dbA, dbB] = await instances(2);
    let now = T0;
    const heldA = heldHandler();
    const heldB = heldHandler();
    const a = worker(dbA!, 'a', heldA.handler, () => now);
    const b = worker(dbB!, 'b', heldB.handler, () => now);
    const id = await enqueue(dbA!, T0, { type: 't', payload: {} });
    const drainingA = a.drain();
    await until(() => heldA.started.length === 1, 'a runs the job');
    // a is stopped (SIGSTOP) past its lease: no heartbeat; b claims the job as its second attempt.
    now = at(LEASE_MS + 1000);
    const drainingB = b.drain();
    await until(() => heldB.started.length === 1, 'b runs the job');
    expect(await row(dbA!, id)).toMatchObject({ status: 'running', locked_by: 'b', attempts: 2 });
    // a resumes (SIGCONT) and finishes: its completion is refused, its work not committed.
    heldA.release();
    await drainingA;
    expect(heldA.recorded).toEqual([]);
    expect(await row(dbA!, id)).toMatchObject({ status: 'running', locked_by: 'b', attempts: 2 });
    heldB.release();
    await drainingB;
    expect(heldB.recorded).toEqual([2]);
    expect((await row(dbA!, id)).status).toBe('done');
    await Promise.all([a.stop(), b.stop()]);
  });

  test('nor fail it: the give-up work of a lost lease does not run, the new owner’s attempt stands', async () => {
    const [dbA, dbB] = await instances(2);
    let now = T0;
    const heldA = heldHandler('fail');
    const heldB = heldHandler();
    const a = worker(dbA!, 'a', heldA.handler, () => now);
    const b = worker(dbB!, 'b', heldB.handler, () => now);
    const id = await enqueue(dbA!, T0, { type: 't', payload: {} });
    const drainingA = a.drain();
    await until(() => heldA.started.length === 1, 'a runs the job');
    now = at(LEASE_MS + 1000);
    const drainingB = b.drain();
    await until(() => heldB.started.length === 1, 'b runs the job');
    heldA.release();
    await drainingA;
    expect(heldA.recorded).toEqual([]);
    expect(await row(dbA!, id)).toMatchObject({ status: 'running', locked_by: 'b' });
    heldB.release();
    await drainingB;
    expect((await row(dbA!, id)).status).toBe('done');
    await Promise.all([a.stop(), b.stop()]);
  });

  test('the fence is the attempt too: the same worker id cannot finish an earlier attempt of a job it claimed again', async () => {
    const [db] = await instances(1);
    const id = await enqueue(db!, T0, { type: 't', payload: {} });
    const [first] = await claimJobs(db!, { workerId: 'w', now: T0, leaseMs: 1000, limit: 1 });
    const [second] = await claimJobs(db!, { workerId: 'w', now: at(2000), leaseMs: 1000, limit: 1 });
    expect([first!.attempts, second!.attempts]).toEqual([1, 2]);
    let gaveUp = false;
    const giveUp = () => {
      gaveUp = true;
    };
    expect(await completeJob(db!, first!, at(2100), giveUp)).toBe(false);
    expect(await failJob(db!, first!, at(2100), new PermanentJobError('late'), giveUp)).toBe('lost');
    expect(gaveUp).toBe(false);
    expect(await row(db!, id)).toMatchObject({ status: 'running', attempts: 2 });
    expect(await completeJob(db!, second!, at(2200))).toBe(true);
    expect((await row(db!, id)).status).toBe('done');
  });

  test('a worker whose heartbeat finds a lease taken over records nothing for it and claims nothing until a heartbeat succeeds', async () => {
    const [dbA, dbB] = await instances(2);
    let now = T0;
    const held = heldHandler();
    const a = worker(dbA!, 'a', held.handler, () => now);
    const lostJob = await enqueue(dbA!, T0, { type: 't', payload: {} });
    const drainingA = a.drain();
    await until(() => held.started.length === 1, 'a runs the job');
    now = at(LEASE_MS + 1000);
    const [taken] = await claimJobs(dbB!, { workerId: 'b', now, leaseMs: LEASE_MS, limit: 1 });
    expect(taken!.id).toBe(lostJob);
    expect(await a.heartbeat()).toBe(false);
    const next = await enqueue(dbB!, now, { type: 't', payload: {} });
    held.release();
    await drainingA;
    expect(await a.drain()).toBe(0);
    expect((await row(dbA!, next)).status).toBe('queued');
    expect(held.recorded).toEqual([]);
    expect(await row(dbA!, lostJob)).toMatchObject({ status: 'running', locked_by: 'b' });
    // The lost job no longer counts: the next heartbeat succeeds and claiming resumes.
    expect(await a.heartbeat()).toBe(true);
    await until(async () => (await row(dbA!, next)).status === 'done', 'a claims and runs the next job');
    expect(held.recorded).toEqual([1]);
    await a.stop();
  });

  test('a worker whose heartbeat cannot reach the database claims nothing until a heartbeat succeeds; its job, still its own, completes', async () => {
    const [db] = await instances(1);
    const held = heldHandler();
    const a = worker(db!, 'a', held.handler, () => T0);
    const first = await enqueue(db!, T0, { type: 't', payload: {} });
    const draining = a.drain();
    await until(() => held.started.length === 1, 'a runs the job');
    // The database refuses every lease write, as an unreachable one would.
    const postgres = dialectOf(db!) === 'postgres';
    if (postgres) {
      await exec(db!, sql.raw(`create function refuse_lease() returns trigger language plpgsql as $$ begin raise exception 'unreachable'; end $$`));
      await exec(db!, sql.raw('create trigger refuse_lease before update of locked_until on jobs for each row execute function refuse_lease()'));
    } else await exec(db!, sql.raw("create trigger refuse_lease before update of locked_until on jobs begin select raise(abort, 'unreachable'); end"));
    expect(await a.heartbeat()).toBe(false);
    await exec(db!, sql.raw(postgres ? 'drop trigger refuse_lease on jobs' : 'drop trigger refuse_lease'));
    const next = await enqueue(db!, T0, { type: 't', payload: {} });
    held.release();
    await draining;
    expect((await row(db!, first)).status).toBe('done');
    expect(await a.drain()).toBe(0);
    expect((await row(db!, next)).status).toBe('queued');
    expect(await a.heartbeat()).toBe(true);
    await until(async () => (await row(db!, next)).status === 'done', 'claiming resumes');
    await a.stop();
  });
});

import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.ts';
import {
  backoffMs,
  claimJobs,
  completeJob,
  enqueue,
  failJob,
  PermanentJobError,
  queueStats,
  RetryLaterError,
  recoverJobs,
  releaseLeases,
} from '../../src/jobs/queue.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { query } from '../helpers.ts';

const T0 = new Date('2026-11-21T12:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const status = async (db: ReturnType<typeof openDatabase>, id: string) =>
  (await query<any>(db, sql`select status, attempts, last_error, run_at from jobs where id = ${id}`))[0];

describe('job queue', () => {
  test('claim is atomic: a due job goes to exactly one claimer; future jobs wait', async () => {
    const db = openDatabase(':memory:');
    const due = await enqueue(db, T0, { type: 't', payload: { n: 1 } });
    await enqueue(db, T0, { type: 't', payload: { n: 2 }, runAt: at(60_000) });
    const a = await claimJobs(db, { workerId: 'a', now: T0, leaseMs: 1000, limit: 10 });
    const b = await claimJobs(db, { workerId: 'b', now: T0, leaseMs: 1000, limit: 10 });
    expect(a.map((j) => j.id)).toEqual([due]);
    expect(a[0]).toMatchObject({ status: 'running', attempts: 1, lockedBy: 'a', payload: { n: 1 } });
    expect(b).toEqual([]);
    // The lease expires: another worker may take it over; the first cannot complete it any more.
    const c = await claimJobs(db, { workerId: 'c', now: at(2000), leaseMs: 1000, limit: 10 });
    expect(c.map((j) => j.id)).toEqual([due]);
    expect(await completeJob(db, a[0]!, at(2500))).toBe(false);
    expect(await completeJob(db, c[0]!, at(2500))).toBe(true);
    expect((await status(db, due)).status).toBe('done');
  });

  test('lanes: a claim takes at most the cap per lane, counting jobs already running; unlaned jobs are not limited', async () => {
    const db = openDatabase(':memory:');
    for (let i = 0; i < 5; i++) await enqueue(db, T0, { type: 't', lane: 'slow', payload: { i } });
    const other = await enqueue(db, T0, { type: 't', lane: 'fast', payload: {} });
    const free = [await enqueue(db, T0, { type: 't', payload: {} }), await enqueue(db, T0, { type: 't', payload: {} })];
    const busy = new Map([['slow', 1]]);
    const first = await claimJobs(db, { workerId: 'w', now: T0, leaseMs: 1000, limit: 10, types: ['t'], lanes: { cap: 2, busy } });
    expect(first.filter((j) => j.lane === 'slow')).toHaveLength(1); // 1 running + 1 claimed = cap
    expect(first.map((j) => j.id)).toEqual(expect.arrayContaining([other, ...free]));
    expect(first).toHaveLength(4);
    // Saturated lanes are skipped, and nothing is claimed twice.
    const second = await claimJobs(db, { workerId: 'w', now: T0, leaseMs: 1000, limit: 10, types: ['t'], lanes: { cap: 2, busy: new Map([['slow', 2]]) } });
    expect(second).toEqual([]);
    const third = await claimJobs(db, { workerId: 'w', now: T0, leaseMs: 1000, limit: 10, types: ['t'], lanes: { cap: 2, busy: new Map() } });
    expect(third.map((j) => j.lane)).toEqual(['slow', 'slow']);
  });

  test('failures back off exponentially with jitter, capped; permanent errors and deadlines end the job', async () => {
    expect(backoffMs(1, () => 0)).toBe(500);
    expect(backoffMs(1, () => 1)).toBe(1000);
    expect(backoffMs(4, () => 1)).toBe(8000);
    expect(backoffMs(30, () => 1)).toBe(300_000);
    // A handler's own cap (PAC_RETRY_MAX_SECONDS for the jobs that ask a PAC).
    expect(backoffMs(30, () => 1, 10_000)).toBe(10_000);
    expect(backoffMs(2, () => 1, 10_000)).toBe(2000);
    const db = openDatabase(':memory:');
    const id = await enqueue(db, T0, { type: 't', payload: {}, deadline: at(10_000) });
    let [job] = await claimJobs(db, { workerId: 'w', now: T0, leaseMs: 1000, limit: 1 });
    expect(await failJob(db, job!, T0, new Error('PAC down'))).toBe('retry');
    expect(await status(db, id)).toMatchObject({ status: 'queued', last_error: 'PAC down' });
    expect(await claimJobs(db, { workerId: 'w', now: T0, leaseMs: 1000, limit: 1 })).toEqual([]);
    [job] = await claimJobs(db, { workerId: 'w', now: at(1000), leaseMs: 1000, limit: 1 });
    expect(job!.attempts).toBe(2);
    expect(await failJob(db, job!, at(9500), new Error('still down'))).toBe('failed'); // the next try would pass the deadline
    expect((await status(db, id)).status).toBe('failed');

    const id2 = await enqueue(db, T0, { type: 't', payload: {} });
    const [j2] = await claimJobs(db, { workerId: 'w', now: T0, leaseMs: 1000, limit: 1 });
    const order: string[] = [];
    const giveUp = () => {
      order.push('in the transaction');
      return () => void order.push('after the commit');
    };
    expect(await failJob(db, j2!, T0, new PermanentJobError('rejected'), giveUp)).toBe('failed');
    expect(order).toEqual(['in the transaction', 'after the commit']);
    expect(await status(db, id2)).toMatchObject({ status: 'failed', last_error: 'rejected' });
    expect(await queueStats(db, T0)).toMatchObject({ depth: 0, failed: 2 });
  });

  test('nothing attempted, with a time it can be (RetryLaterError): retried then, whatever its backoff, without using up an attempt; a time past the deadline ends the job', async () => {
    const db = openDatabase(':memory:');
    const id = await enqueue(db, T0, { type: 't', payload: {}, deadline: at(120_000), maxAttempts: 1 });
    let [job] = await claimJobs(db, { workerId: 'w', now: T0, leaseMs: 1000, limit: 1 });
    // Far past the first backoff (≤ 1 s).
    expect(await failJob(db, job!, T0, new RetryLaterError('circuit open', at(30_000)))).toBe('retry');
    expect(await status(db, id)).toMatchObject({ status: 'queued', run_at: at(30_000).toISOString(), last_error: 'circuit open' });
    [job] = await claimJobs(db, { workerId: 'w', now: at(30_000), leaseMs: 1000, limit: 1 });
    // Its one attempt (maxAttempts: 1) is still to come: this claim is attempt 1 again.
    expect(job!.attempts).toBe(1);
    // A time already past: due at once.
    expect(await failJob(db, job!, at(30_500), new RetryLaterError('window over', at(10_000)))).toBe('retry');
    expect((await status(db, id)).run_at).toBe(at(30_500).toISOString());
    [job] = await claimJobs(db, { workerId: 'w', now: at(30_500), leaseMs: 1000, limit: 1 });
    expect(await failJob(db, job!, at(31_000), new RetryLaterError('circuit open', at(200_000)))).toBe('failed');
  });

  test('recovery at start: jobs whose lease expired are due at once; a live lease (another instance) is left alone', async () => {
    const db = openDatabase(':memory:');
    const dead = await enqueue(db, T0, { type: 't', payload: {} });
    const live = await enqueue(db, T0, { type: 't', payload: {}, runAt: at(1) });
    await claimJobs(db, { workerId: 'dead-boot', now: T0, leaseMs: 500, limit: 1 });
    await claimJobs(db, { workerId: 'live-boot', now: at(1), leaseMs: 3_600_000, limit: 1 });
    expect(await recoverJobs(db, at(1000))).toBe(1);
    expect(await status(db, dead)).toMatchObject({ status: 'queued', run_at: at(1000).toISOString() });
    expect((await status(db, live)).status).toBe('running');
    expect((await claimJobs(db, { workerId: 'new-boot', now: at(1000), leaseMs: 1000, limit: 5 })).map((j) => j.id)).toEqual([dead]);
  });

  test('at shutdown a process hands back only its own leases, due at once', async () => {
    const db = openDatabase(':memory:');
    const mine = await enqueue(db, T0, { type: 't', payload: {} });
    const theirs = await enqueue(db, T0, { type: 't', payload: {} });
    await claimJobs(db, { workerId: 'me', now: T0, leaseMs: 3_600_000, limit: 1 });
    await claimJobs(db, { workerId: 'other', now: T0, leaseMs: 3_600_000, limit: 1 });
    expect(await releaseLeases(db, 'me', at(500))).toBe(1);
    expect(await status(db, mine)).toMatchObject({ status: 'queued', run_at: at(500).toISOString() });
    expect((await status(db, theirs)).status).toBe('running');
    expect((await claimJobs(db, { workerId: 'next-boot', now: at(500), leaseMs: 1000, limit: 5 })).map((j) => j.id)).toEqual([mine]);
  });

  test('the worker runs handlers, commits their work with completion, and retries failures', async () => {
    const db = openDatabase(':memory:');
    let now = T0;
    const seen: number[] = [];
    let flaky = 2;
    const worker = createWorker({
      db,
      now: () => now,
      workerId: 'w',
      logger: createLogger('silent'),
      handlers: {
        ok: { run: async (job) => void seen.push(job.payload.n as number) },
        flaky: {
          run: async () => {
            if (flaky-- > 0) throw new Error('not yet');
          },
        },
      },
    });
    for (let n = 0; n < 20; n++) await enqueue(db, T0, { type: 'ok', payload: { n } });
    const f = await enqueue(db, T0, { type: 'flaky', payload: {} });
    expect(await worker.drain()).toBe(21);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect((await status(db, f)).status).toBe('queued');
    now = at(10 * 60_000);
    await worker.drain();
    now = at(20 * 60_000);
    await worker.drain();
    expect(await status(db, f)).toMatchObject({ status: 'done', attempts: 3 });
    expect(await queueStats(db, now)).toMatchObject({ depth: 0, running: 0 });
  });

  test("a handler's maxBackoffMs caps its retries' waits (PAC_RETRY_MAX_SECONDS); others keep the 5 minutes", async () => {
    const db = openDatabase(':memory:');
    let now = T0;
    const failing = { run: async () => Promise.reject(new Error('PAC down')) };
    const worker = createWorker({
      db,
      now: () => now,
      workerId: 'w',
      logger: createLogger('silent'),
      handlers: { capped: { ...failing, maxBackoffMs: 2000 }, uncapped: failing },
    });
    const capped = await enqueue(db, T0, { type: 'capped', payload: {} });
    const uncapped = await enqueue(db, T0, { type: 'uncapped', payload: {} });
    // Ten failed attempts each, the clock moved past every wait.
    for (let i = 0; i < 10; i++) {
      await worker.drain();
      now = new Date(now.getTime() + 3600_000);
    }
    now = new Date(now.getTime() - 3600_000);
    const waitOf = async (id: string) => Date.parse((await status(db, id)).run_at) - now.getTime();
    expect(await waitOf(capped)).toBeLessThanOrEqual(2000);
    expect(await waitOf(uncapped)).toBeGreaterThan(2000);
  });
});

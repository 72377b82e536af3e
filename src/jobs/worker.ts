import type { Db } from '../db/client.ts';
import type { Logger } from '../lib/logger.ts';
import { logStorageFailure } from '../lib/storage-log.ts';
import { claimJobs, completeJob, extendLeases, failJob, nextRunAt, type Ended, type Job } from './queue.ts';

/** What a job type does. `run` may return work to commit together with marking the job done. */
export interface JobHandler {
  run(job: Job): Promise<Ended | void>;
  /** Work to commit when the job is given up (permanent error, deadline, attempts). */
  giveUp?(job: Job, error: unknown): Ended;
  /** Work to commit when a failed attempt is to be retried (e.g. recording what the attempt got). */
  retrying?(job: Job, error: unknown): Ended;
  /** The cap of its exponential backoff (default 5 minutes). */
  maxBackoffMs?: number;
}

export interface Worker {
  /** Runs due jobs until none is left. Never rejects: a database error (a full disk) is logged and ends the drain. */
  drain(): Promise<number>;
  /** Drain soon, without waiting for the next tick (called after an enqueue); with a type, only a pool that runs it. */
  wake(type?: string): void;
  /**
   * Extends the leases of the jobs in flight (the timer does this every leaseMs/3 while any run). False when the
   * database could not be reached or a lease was taken over: until a heartbeat succeeds again, nothing is claimed.
   */
  heartbeat(): Promise<boolean>;
  /** Claims nothing more; resolves when the jobs in flight have ended (graceful shutdown). */
  stop(): Promise<void>;
}

/** A job in flight and whether its lease is still this worker's: a lost one's outcome is not written. */
interface Running {
  job: Job;
  lost: boolean;
}

export function createWorker(o: {
  db: Db;
  now: () => Date;
  workerId: string;
  handlers: Record<string, JobHandler>;
  logger: Logger;
  concurrency?: number;
  /** At most this many jobs of one lane (`jobs.lane`) at once; unset: lanes are not limited. */
  laneCap?: number;
  /** With a lane cap: at most this many jobs of one tenant at once, across all its lanes. */
  tenantCap?: number;
  /**
   * How long a claim holds a job without a heartbeat (default 30 s; the heartbeat renews it every third of that).
   * It bounds how long a dead instance's jobs wait before another takes them over, and must exceed clock skew
   * between instances and any pause of the event loop by a wide margin.
   */
  leaseMs?: number;
  /**
   * After a drain, a job of this pool due within this many ms (before the scheduler's next tick) gets a timer that
   * wakes the pool when it is due, so a short delay (a 1 s cancellation poll) is not stretched to the tick.
   */
  wakeWithinMs?: number;
}): Worker {
  const concurrency = o.concurrency ?? 8;
  const leaseMs = o.leaseMs ?? 30_000;
  /** The jobs in flight whose outcome is not yet being written, by id: what the heartbeat extends. */
  const held = new Map<string, Running>();
  /** False from a failed heartbeat until one succeeds: claiming then could take work this worker cannot keep. */
  let leasesKept = true;
  let beating: ReturnType<typeof setInterval> | undefined;
  let beat: Promise<boolean> | undefined;
  const laneBusy = new Map<string, number>();
  const tenantBusy = new Map<string, number>();
  let draining: Promise<number> | undefined;
  let again = false;
  /** A drain asked for while one runs (an enqueue's wake, a tick): its loop claims again now, not when a job ends. */
  let nudged = false;
  let nudge: (() => void) | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const types = Object.keys(o.handlers);
  /** Arms one timer for the next job of this pool due before the next tick (future ones only: due ones are claimed). */
  const armTimer = async () => {
    const within = o.wakeWithinMs ?? 5000;
    if (stopped || timer || within <= 0 || types.length === 0) return;
    const now = o.now();
    const next = await nextRunAt(o.db, types, now, new Date(now.getTime() + within));
    if (!next) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        void drain();
      },
      Math.max(1, Date.parse(next) - now.getTime()),
    );
    timer.unref?.();
  };

  const heartbeat = async (): Promise<boolean> => {
    const mine = [...held.values()].filter((r) => !r.lost);
    try {
      const extended = new Set(
        await extendLeases(
          o.db,
          o.workerId,
          mine.map((r) => r.job),
          o.now(),
          leaseMs,
        ),
      );
      // A job whose outcome is being written meanwhile left `held` first: its missing row is no lost lease.
      const lost = mine.filter((r) => !extended.has(r.job.id) && held.has(r.job.id));
      for (const r of lost) {
        r.lost = true;
        o.logger.warn('job lease lost: another worker took it over; this attempt records nothing', {
          job_id: r.job.id,
          type: r.job.type,
          attempt: r.job.attempts,
        });
      }
      const resumed = !leasesKept && lost.length === 0;
      leasesKept = lost.length === 0;
      if (resumed) {
        o.logger.info('job leases kept again: claiming resumes', { types });
        wake();
      }
    } catch (err) {
      if (leasesKept && !logStorageFailure(o.logger, err, { types }))
        o.logger.error('job lease heartbeat failed: claiming stops until one succeeds', { types, err: errorText(err) });
      leasesKept = false;
    }
    pace();
    return leasesKept;
  };
  /** The heartbeat's timer runs while jobs are in flight, and while a failed heartbeat waits for a good one. */
  const pace = () => {
    const needed = held.size > 0 || (!leasesKept && !stopped);
    if (needed && !beating) {
      // One heartbeat at a time: against a slow database the next waits for the last, not piles up behind it.
      beating = setInterval(() => void (beat ??= heartbeat().finally(() => (beat = undefined))), Math.max(1, Math.floor(leaseMs / 3)));
      beating.unref?.();
    } else if (!needed && beating) {
      clearInterval(beating);
      beating = undefined;
    }
  };

  const runJob = async (running: Running) => {
    const { job } = running;
    const handler = o.handlers[job.type];
    const started = performance.now();
    o.logger.debug('job claimed', { job_id: job.id, type: job.type, attempt: job.attempts, lane: job.lane ?? undefined, leased_until: job.lockedUntil });
    /** Stops the heartbeat for this job; true when its outcome may still be written. */
    const finishing = () => {
      held.delete(job.id);
      if (running.lost) o.logger.warn('job outcome not recorded: its lease was lost', { job_id: job.id, type: job.type, attempt: job.attempts });
      return !running.lost;
    };
    try {
      if (!handler) throw new Error(`no handler for job type ${job.type}`);
      const done = await handler.run(job);
      if (!finishing()) return;
      if (await completeJob(o.db, job, o.now(), done ?? undefined))
        o.logger.debug('job done', { job_id: job.id, type: job.type, attempt: job.attempts, duration_ms: Math.round(performance.now() - started) });
      else o.logger.warn('job outcome not recorded: its lease was lost', { job_id: job.id, type: job.type, attempt: job.attempts });
    } catch (err) {
      if (!finishing()) return;
      try {
        const outcome = await failJob(o.db, job, o.now(), err, handler?.giveUp?.(job, err), handler?.retrying?.(job, err), handler?.maxBackoffMs);
        if (outcome === 'lost')
          o.logger.warn('job outcome not recorded: its lease was lost', { job_id: job.id, type: job.type, attempt: job.attempts, job_err: errorText(err) });
        else if (!logStorageFailure(o.logger, err, { job_id: job.id, type: job.type }))
          o.logger.warn('job attempt failed', { job_id: job.id, type: job.type, attempt: job.attempts, outcome, err: errorText(err) });
      } catch (recordErr) {
        // The outcome could not be written (a full disk): the job keeps its lease and runs again once it expires.
        if (!logStorageFailure(o.logger, recordErr, { job_id: job.id, type: job.type }))
          o.logger.error('job outcome not recorded', {
            job_id: job.id,
            type: job.type,
            attempt: job.attempts,
            err: errorText(recordErr),
            job_err: errorText(err),
          });
      }
    }
  };

  const start = (job: Job, inFlight: Set<Promise<void>>) => {
    count(laneBusy, job.lane, 1);
    count(tenantBusy, job.tenantId, 1);
    const running: Running = { job, lost: false };
    held.set(job.id, running);
    pace();
    const p: Promise<void> = runJob(running).finally(() => {
      held.delete(job.id);
      pace();
      inFlight.delete(p);
      count(laneBusy, job.lane, -1);
      count(tenantBusy, job.tenantId, -1);
    });
    inFlight.add(p);
  };

  /**
   * A pool, not batches: up to `concurrency` jobs in flight, and a free slot is refilled as soon as a job ends, so
   * one slow job (a webhook receiver that takes 10 s) does not hold up the others; with a lane cap, one slow lane
   * holds at most its cap of slots.
   */
  const drainOnce = async () => {
    let total = 0;
    const inFlight = new Set<Promise<void>>();
    const lanes = o.laneCap ? { cap: o.laneCap, busy: laneBusy, tenantCap: o.tenantCap, tenantBusy } : undefined;
    let claimError: unknown;
    for (;;) {
      const free = stopped || !leasesKept || claimError !== undefined ? 0 : concurrency - inFlight.size;
      let batch: Job[] = [];
      try {
        if (free > 0)
          batch = await claimJobs(o.db, {
            workerId: o.workerId,
            now: o.now(),
            leaseMs,
            limit: free,
            types,
            lanes,
          });
      } catch (err) {
        claimError = err; // claims nothing more; the jobs in flight still end and record their outcome
      }
      for (const job of batch) start(job, inFlight);
      total += batch.length;
      if (inFlight.size === 0) break; // nothing running and nothing due: a failed attempt is due ≥ 0.5 s later
      // Waits for a free slot or for new work: a job enqueued while slow ones hold their slots (a receiver that takes
      // the whole attempt timeout) is claimed into a free slot at once, not when one of them ends.
      if (!nudged) await Promise.race([...inFlight, new Promise<void>((resolve) => (nudge = resolve))]);
      nudged = false;
      nudge = undefined;
    }
    if (claimError !== undefined) throw claimError;
    return total;
  };

  const drain = (): Promise<number> => {
    if (stopped) return Promise.resolve(0);
    if (draining) {
      again = true;
      nudged = true;
      nudge?.();
      return draining;
    }
    draining = (async () => {
      let total = 0;
      do {
        again = false;
        total += await drainOnce();
      } while (again);
      if (total > 0) o.logger.debug('jobs drained', { types, jobs: total });
      return total;
    })()
      .catch((err) => {
        // A database that cannot be written (a full disk) or read: the next tick or wake tries again.
        if (!logStorageFailure(o.logger, err, { types })) o.logger.error('job drain failed', { types, err: errorText(err) });
        return 0;
      })
      .finally(async () => {
        draining = undefined;
        try {
          await armTimer();
        } catch (err) {
          if (!logStorageFailure(o.logger, err, { types })) o.logger.error('job drain failed', { types, err: errorText(err) });
        }
      });
    return draining;
  };

  const wake = (type?: string) => {
    if (type === undefined || types.includes(type)) setTimeout(() => void drain(), 0);
  };

  return {
    drain,
    wake,
    heartbeat,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await draining;
      pace();
    },
  };
}

/** Adds `delta` to the running count of `key` (none for a null key); a count back at 0 is removed. */
function count(counts: Map<string, number>, key: string | null, delta: number) {
  if (key === null) return;
  const n = (counts.get(key) ?? 0) + delta;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Several pools driven as one: drain runs them side by side, wake wakes each. */
export function combineWorkers(...workers: Worker[]): Worker {
  return {
    drain: async () => (await Promise.all(workers.map((w) => w.drain()))).reduce((a, b) => a + b, 0),
    wake: (type) => workers.forEach((w) => w.wake(type)),
    heartbeat: async () => (await Promise.all(workers.map((w) => w.heartbeat()))).every(Boolean),
    stop: async () => void (await Promise.all(workers.map((w) => w.stop()))),
  };
}

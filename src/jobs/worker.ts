import type { Db } from '../db/client.ts';
import type { Logger } from '../lib/logger.ts';
import { claimJobs, completeJob, failJob, type Job } from './queue.ts';

type Ended = Parameters<typeof completeJob>[3];

/** What a job type does. `run` may return work to commit together with marking the job done. */
export interface JobHandler {
  run(job: Job): Promise<Ended | void>;
  /** Work to commit when the job is given up (permanent error, deadline, attempts). */
  giveUp?(job: Job, error: unknown): Ended;
}

export interface Worker {
  /** Runs due jobs until none is left. */
  drain(): Promise<number>;
  /** Drain soon, without waiting for the next tick (called after an enqueue). */
  wake(): void;
}

export function createWorker(o: {
  db: Db;
  now: () => Date;
  workerId: string;
  handlers: Record<string, JobHandler>;
  logger: Logger;
  concurrency?: number;
  leaseMs?: number;
}): Worker {
  const concurrency = o.concurrency ?? 8;
  let draining: Promise<number> | undefined;
  let again = false;

  const runJob = async (job: Job) => {
    const handler = o.handlers[job.type];
    try {
      if (!handler) throw new Error(`no handler for job type ${job.type}`);
      const done = await handler.run(job);
      completeJob(o.db, job, o.now(), done ?? undefined);
    } catch (err) {
      const outcome = failJob(o.db, job, o.now(), err, handler?.giveUp?.(job, err));
      o.logger.warn('job attempt failed', { job_id: job.id, type: job.type, attempt: job.attempts, outcome, err: err instanceof Error ? err.message : String(err) });
    }
  };

  /**
   * A pool, not batches: up to `concurrency` jobs in flight, and a free slot is refilled as soon as a job ends, so
   * one slow job (a webhook receiver that takes 10 s) does not hold up the others.
   */
  const drainOnce = async () => {
    let total = 0;
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      const free = concurrency - inFlight.size;
      const batch = free > 0 ? claimJobs(o.db, { workerId: o.workerId, now: o.now(), leaseMs: o.leaseMs ?? 120_000, limit: free, types: Object.keys(o.handlers) }) : [];
      for (const job of batch) {
        const p: Promise<void> = runJob(job).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      total += batch.length;
      if (inFlight.size === 0) break; // nothing running and nothing due: a failed attempt is due ≥ 0.5 s later
      await Promise.race(inFlight);
    }
    return total;
  };

  const drain = (): Promise<number> => {
    if (draining) {
      again = true;
      return draining;
    }
    draining = (async () => {
      let total = 0;
      do {
        again = false;
        total += await drainOnce();
      } while (again);
      return total;
    })().finally(() => (draining = undefined));
    return draining;
  };

  return {
    drain,
    wake: () => void setTimeout(() => void drain(), 0),
  };
}

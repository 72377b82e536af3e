import { Cron } from 'croner';
import type { Logger } from '../lib/logger.ts';

export interface Heartbeat {
  /** Epoch ms of the last completed tick, or null before the first. */
  lastTickAt(): number | null;
  intervalMs: number;
}

export interface Scheduler extends Heartbeat {
  start(): void;
  stop(): void;
  tick(): Promise<void>;
}

/**
 * The in-process scheduler: croner ticks every `intervalSeconds` (never overlapping: `protect`), and each tick
 * runs the registered tasks. The heartbeat it leaves is what GET /health checks. Work lives in tables, not here.
 */
export function createScheduler(opts: { logger: Logger; intervalSeconds?: number; tasks?: Array<() => Promise<void> | void> }): Scheduler {
  const intervalSeconds = opts.intervalSeconds ?? 5;
  const tasks = opts.tasks ?? [];
  let last: number | null = null;
  let cron: Cron | undefined;
  const tick = async () => {
    for (const task of tasks) {
      try {
        await task();
      } catch (err) {
        opts.logger.error('scheduler task failed', { err: err instanceof Error ? err.stack : String(err) });
      }
    }
    last = Date.now();
  };
  return {
    intervalMs: intervalSeconds * 1000,
    lastTickAt: () => last,
    tick,
    start() {
      cron ??= new Cron(`*/${intervalSeconds} * * * * *`, { protect: true }, tick);
      void tick();
    },
    stop() {
      cron?.stop();
      cron = undefined;
    },
  };
}

import { Cron } from 'croner';
import type { Logger } from '../lib/logger.ts';

export interface Heartbeat {
  /** Epoch ms of the last completed tick, or null before the first. */
  lastTickAt(): number | null;
  intervalMs: number;
}

export interface Task {
  name: string;
  run(): Promise<unknown> | unknown;
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
export function createScheduler(opts: {
  logger: Logger;
  intervalSeconds?: number;
  /** Run on every tick. */
  tasks?: Task[];
  /** Run once at start (to catch up after downtime) and every day at 03:00 server time. */
  daily?: Task[];
}): Scheduler {
  const intervalSeconds = opts.intervalSeconds ?? 5;
  let last: number | null = null;
  let cron: Cron | undefined;
  let dailyCron: Cron | undefined;
  const run = async (tasks: Task[]) => {
    for (const task of tasks) {
      try {
        await task.run();
      } catch (err) {
        opts.logger.error('scheduler task failed', { task: task.name, err: err instanceof Error ? err.stack : String(err) });
      }
    }
  };
  const tick = async () => {
    await run(opts.tasks ?? []);
    last = Date.now();
  };
  return {
    intervalMs: intervalSeconds * 1000,
    lastTickAt: () => last,
    tick,
    start() {
      cron ??= new Cron(`*/${intervalSeconds} * * * * *`, { protect: true }, tick);
      dailyCron ??= new Cron('0 0 3 * * *', { protect: true }, () => run(opts.daily ?? []));
      void tick();
      void run(opts.daily ?? []);
    },
    stop() {
      cron?.stop();
      dailyCron?.stop();
      cron = dailyCron = undefined;
    },
  };
}

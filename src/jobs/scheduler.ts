import { Cron } from 'croner';
import type { Logger } from '../lib/logger.ts';
import { logStorageFailure } from '../lib/storage-log.ts';

export interface Heartbeat {
  /** Epoch ms of the last tick, or null before the first. */
  lastTickAt(): number | null;
  intervalMs: number;
}

export interface Task {
  name: string;
  run(): Promise<unknown> | unknown;
}

export interface Scheduler extends Heartbeat {
  start(): void;
  /** No tick or task starts after it; resolves when the tasks already running end. */
  stop(): Promise<void>;
  /** Records the heartbeat and starts each task not still running from an earlier tick; resolves when those end. */
  tick(): Promise<void>;
}

/**
 * The in-process scheduler: croner ticks every `intervalSeconds` and each tick starts the registered tasks. The
 * heartbeat (what GET /health checks) moves on every tick, also while a task from an earlier tick is still running
 * (a job drain under steady load can go on for minutes): it says the scheduler is alive, not that the work is done;
 * stuck work shows in /health's queue check. Work lives in tables, not here.
 */
export function createScheduler(opts: {
  logger: Logger;
  intervalSeconds?: number;
  /** Run on every tick. */
  tasks?: Task[];
  /** Run once at start (to catch up after downtime) and every day at 03:00 server time. */
  daily?: Task[];
  /** Run once at start and five minutes past every hour (work due at midnight in a time zone of the tenants'). */
  hourly?: Task[];
}): Scheduler {
  const intervalSeconds = opts.intervalSeconds ?? 5;
  let last: number | null = null;
  let cron: Cron | undefined;
  let dailyCron: Cron | undefined;
  let hourlyCron: Cron | undefined;
  const running = new Map<Task, Promise<void>>();
  let stopped = false;
  /** Starts a task unless it is still running (a task never overlaps itself) or the scheduler stopped; never rejects. */
  const runTask = (task: Task): Promise<void> => {
    if (stopped) return Promise.resolve();
    const inProgress = running.get(task);
    if (inProgress) return inProgress;
    const p = (async () => {
      try {
        await task.run();
      } catch (err) {
        if (!logStorageFailure(opts.logger, err, { task: task.name }))
          opts.logger.error('scheduler task failed', { task: task.name, err: err instanceof Error ? err.stack : String(err) });
      } finally {
        running.delete(task);
      }
    })();
    running.set(task, p);
    return p;
  };
  const run = async (tasks: Task[]) => {
    for (const task of tasks) await runTask(task);
  };
  const tick = async () => {
    last = Date.now();
    await Promise.all((opts.tasks ?? []).map(runTask));
  };
  return {
    intervalMs: intervalSeconds * 1000,
    lastTickAt: () => last,
    tick,
    start() {
      stopped = false;
      // Not awaited: a tick returns at once, so the next one fires on time (and moves the heartbeat) while a task runs.
      cron ??= new Cron(`*/${intervalSeconds} * * * * *`, () => void tick());
      dailyCron ??= new Cron('0 0 3 * * *', () => void run(opts.daily ?? []));
      hourlyCron ??= new Cron('0 5 * * * *', () => void run(opts.hourly ?? []));
      void tick();
      void run(opts.daily ?? []);
      void run(opts.hourly ?? []);
    },
    stop() {
      stopped = true;
      cron?.stop();
      dailyCron?.stop();
      hourlyCron?.stop();
      cron = dailyCron = hourlyCron = undefined;
      // A task cut by the database closing under it would leave its transaction's connection held (PostgreSQL's pool
      // then waits out its end timeout): shutdown waits for what runs, bounded by its own deadline.
      return Promise.all(running.values()).then(() => {});
    },
  };
}

import type { Db } from './db/client.ts';
import { purgeLoginFailures } from './auth/session/login-throttle.ts';
import { sweepCsdExpiry } from './invoices/csds/service.ts';
import { announceExpiredReceipts } from './invoices/receipts/service.ts';
import { foldStatsDeltas } from './invoices/stats/service.ts';
import { loadPublishedLista69b } from './invoices/sat-lists/service.ts';
import type { Task } from './jobs/scheduler.ts';
import { purgeIdempotencyKeys } from './lib/idempotency.ts';
import type { Logger } from './lib/logger.ts';

/**
 * Every periodic task of the service, for the scheduler: `tasks` run on each tick, `daily` at start and at 03:00,
 * `hourly` at start and every hour.
 * Only index.ts starts them; tests call the functions (drain, sweep, purges) directly.
 */
export function periodicWork(deps: {
  db: Db;
  logger: Logger;
  /** Runs the work unless another process runs it now (the Coordination's `exclusive`); resolves to whether it ran. */
  exclusive: (name: string, work: () => Promise<unknown>) => Promise<boolean>;
  drainJobs: () => Promise<unknown>;
  /** The automatic global invoices of the periods that ended (receipts' settings). */
  issueGlobalInvoices?: () => Promise<{ issued: number; failed: number }>;
  /** The SAT status of received CFDI not checked for a day, a bounded batch a tick (invoices/received/status.ts). */
  refreshReceivedStatus?: () => Promise<{ refreshed: number; failed: number }>;
  /** The scheduled Descarga Masiva sync (invoices/sat-downloads/sync.ts): requests only; the job queue sends them. */
  syncSatDownloads?: () => Promise<{ tenants: number; requested: number; skipped: number }>;
  /** SAT_69B_URL: SAT's Lista 69-B, loaded daily as everyone's published list. */
  sat69bUrl?: string;
}): { tasks: Task[]; daily: Task[]; hourly: Task[] } {
  const daily: Task[] = [
    { name: 'csd-expiry', run: async () => deps.logger.info('csd expiry sweep', await sweepCsdExpiry(deps.db, new Date())) },
    { name: 'idempotency-purge', run: () => purgeIdempotencyKeys(deps.db, new Date()) },
    { name: 'login-failures-purge', run: () => purgeLoginFailures(deps.db, new Date()) },
  ];
  const sat69bUrl = deps.sat69bUrl;
  if (sat69bUrl)
    daily.push({
      name: 'sat-69b',
      run: async () => deps.logger.info('Lista 69-B loaded', await loadPublishedLista69b({ db: deps.db, now: () => new Date(), url: sat69bUrl })),
    });
  // Receipts expire at the end of a month in each issuer's zone, so within the hour after it, not hours later.
  const hourly: Task[] = [
    {
      name: 'receipts-expiry',
      run: async () => {
        const done = await announceExpiredReceipts(deps.db, new Date());
        if (done.expired > 0) deps.logger.info('receipts expired', done);
      },
    },
  ];
  if (deps.issueGlobalInvoices)
    hourly.push({
      name: 'global-invoices',
      run: async () => {
        const done = await deps.issueGlobalInvoices!();
        if (done.issued + done.failed > 0) deps.logger.info('automatic global invoices', done);
      },
    });
  // Hourly, not daily: a day is requested once either way, and a received metadata request finished in the meantime is
  // followed by its XML request within the hour rather than the next day.
  if (deps.syncSatDownloads)
    hourly.push({
      name: 'sat-download-sync',
      run: async () => {
        const done = await deps.syncSatDownloads!();
        if (done.requested + done.skipped > 0) deps.logger.info('SAT download sync', done);
      },
    });
  const tasks: Task[] = [{ name: 'jobs', run: deps.drainJobs }, onOneInstance(deps, { name: 'stats-fold', run: () => foldStatsDeltas(deps.db) })];
  if (deps.refreshReceivedStatus)
    tasks.push(
      onOneInstance(deps, {
        name: 'received-status',
        run: async () => {
          const done = await deps.refreshReceivedStatus!();
          if (done.refreshed + done.failed > 0) deps.logger.info('received CFDI status refreshed', done);
        },
      }),
    );
  return {
    // The statistics' deltas are folded often, so that GET /stats adds few of them to the folded rows.
    tasks,
    daily: daily.map((task) => onOneInstance(deps, task)),
    hourly: hourly.map((task) => onOneInstance(deps, task)),
  };
}

/**
 * A periodic task that one instance runs while the others, ticking at the same time, skip their round (PostgreSQL's
 * advisory lock, through the Coordination's `exclusive`). Each is idempotent too, for an instance whose clock ticks
 * after the first has finished.
 */
function onOneInstance(deps: { exclusive: (name: string, work: () => Promise<unknown>) => Promise<boolean>; logger: Logger }, task: Task): Task {
  return {
    name: task.name,
    run: async () => {
      if (!(await deps.exclusive(`daily:${task.name}`, async () => task.run())))
        deps.logger.debug('task running on another instance: skipped', { task: task.name });
    },
  };
}

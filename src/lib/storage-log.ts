import { storageFailure } from '../db/engine.ts';
import type { Logger } from './logger.ts';

/** How often each kind of storage failure is logged while it lasts: once, then a line per interval with a count. */
export const STORAGE_LOG_INTERVAL_MS = 30_000;

type Kind = NonNullable<ReturnType<typeof storageFailure>>['kind'];
type StorageLog = (err: unknown, fields?: Record<string, unknown>) => boolean;

const WHAT: Record<Kind, string> = {
  full: 'storage full: writes fail until there is room',
  failing: 'storage failing: writes fail',
  unreachable: 'database unreachable: requests fail until it is back',
};

// One per logger (one per process): the gateway, the backends, the worker and the scheduler share its count.
const limiters = new WeakMap<Logger, StorageLog>();

/**
 * Logs a storage failure (full disk, failing disk, lost database) as one line per kind per interval, without the
 * stack, with how many were left out since the last: every request and job fails the same way while it lasts, and a
 * line with a stack each would fill the disk further. False (nothing logged) for any other error.
 */
export function logStorageFailure(logger: Logger, err: unknown, fields?: Record<string, unknown>): boolean {
  let log = limiters.get(logger);
  if (!log) limiters.set(logger, (log = storageLogLimiter(logger)));
  return log(err, fields);
}

/** Gives `logger` a limiter on `now`'s clock (an app's), before anything logs through it. */
export function limitStorageLogs(logger: Logger, now: () => number): void {
  if (!limiters.has(logger)) limiters.set(logger, storageLogLimiter(logger, now));
}

function storageLogLimiter(logger: Logger, now: () => number = Date.now): StorageLog {
  const last = new Map<Kind, { at: number; suppressed: number }>();
  return (err, fields) => {
    const failure = storageFailure(err);
    if (!failure) return false;
    const t = now();
    const seen = last.get(failure.kind);
    if (seen && t - seen.at < STORAGE_LOG_INTERVAL_MS) {
      seen.suppressed++;
      return true;
    }
    logger.error(WHAT[failure.kind], {
      kind: failure.kind,
      code: failure.code,
      err: innermostMessage(err),
      suppressed: seen?.suppressed ?? 0,
      interval_s: STORAGE_LOG_INTERVAL_MS / 1000,
      ...fields,
    });
    last.set(failure.kind, { at: t, suppressed: 0 });
    return true;
  };
}

/** The driver's own words, at the end of the cause chain (Drizzle's "Failed query" wraps them). */
function innermostMessage(err: unknown): string {
  let e = err;
  for (let depth = 0; depth < 5 && (e as { cause?: unknown }).cause !== undefined; depth++) e = (e as { cause?: unknown }).cause;
  return e instanceof Error ? e.message : String(e);
}

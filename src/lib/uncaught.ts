import { fromPostgresDriver } from '../db/postgres/driver-fault.ts';
import type { Logger } from './logger.ts';

/** How often a burst of driver faults is logged: a restart breaks every connection of the pool within a second. */
const DRIVER_FAULT_LOG_INTERVAL_MS = 30_000;

/**
 * The process's last handler for an exception nothing caught. It leaves unknown state behind: log and exit, and let
 * the supervisor restart (the next start recovers the jobs' leases). But a fault inside the PostgreSQL driver's
 * connection code (src/db/postgres/driver-fault.ts) is a lost connection the pool replaces: logged (once per
 * interval, with a count), and the process keeps serving.
 */
export function uncaughtExceptionHandler(o: {
  logger: Logger;
  exit: (code: number) => void;
  now?: () => number;
  /** False while the process starts: a start whose connection broke exits and is started again, as it always was. */
  serving?: () => boolean;
}): (err: Error) => void {
  const now = o.now ?? Date.now;
  let loggedAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (err) => {
    if (fromPostgresDriver(err) && (o.serving?.() ?? true)) {
      if (now() - loggedAt < DRIVER_FAULT_LOG_INTERVAL_MS) {
        suppressed++;
        return;
      }
      o.logger.error('database connection error inside the PostgreSQL driver: the pool reconnects', { err: err.message, suppressed });
      loggedAt = now();
      suppressed = 0;
      return;
    }
    o.logger.error('uncaught exception: exiting', { err: err.stack ?? String(err) });
    o.exit(1);
  };
}

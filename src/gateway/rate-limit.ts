import { storageFailure } from '../db/engine.ts';
import type { Db, Tx } from '../db/index.ts';
import type { Logger } from '../lib/logger.ts';
import { countHits, purgeEndedWindows } from './queries.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  reset: number;
  retryAfter: number;
}

/** One budget a request spends: its name (credential, tenant, address) and how many requests a window allows. */
interface Budget {
  key: string;
  limit: number;
}

/** Counts requests in fixed windows aligned to the clock, one length per limiter. */
export interface RateLimiter {
  /**
   * Counts one request against each budget in turn and stops after the first that refuses, so a request its
   * credential refuses spends nothing of its tenant's budget. The decisions of the budgets counted, in order.
   * `within`: the transaction to count in, so that a rolled-back attempt is not counted (PostgreSQL).
   */
  hit(budgets: readonly Budget[], within?: Tx): Promise<RateDecision[]>;
}

/**
 * Makes a limiter: `scope` keeps its budgets apart from other limiters', `windowMs` is its window's length.
 * A counter that does not answer within COUNT_TIMEOUT_MS (PostgreSQL slow or hung) fails no request: this instance
 * decides it on the last count it had plus its own since. `countAloneWhenUnreachable`: also when the database refuses,
 * for the answers that must still come (/health saying the database is down); otherwise that request fails as the
 * database does (503), as it would further on (except on a full disk, where reads still work and are served).
 */
export type RateLimits = (scope: string, windowMs: number, options?: { countAloneWhenUnreachable?: boolean }) => RateLimiter;

/**
 * Rate counters in this process's memory, for one process (src/topology/single.ts): a restart opens a new window.
 * `clock`: a clock the windows follow instead (tests).
 */
export function processRateLimits(clock: () => Date = () => new Date()): RateLimits {
  return (_scope, windowMs) => memoryLimiter(new FixedWindowLimiter(windowMs), clock);
}

/**
 * Several instances on PostgreSQL (src/topology/postgres.ts): one counter table every instance spends from, one
 * statement in flight per caller and instance, windows on the database's clock so that instances whose clocks differ
 * agree. `clock`: a clock the windows follow instead (tests). `logger`: says once when the counters are late.
 */
export function counterTableRateLimits(db: Db, clock?: () => Date, logger?: Logger): RateLimits {
  return (scope, windowMs, options) => counterTableLimiter(db, scope, windowMs, clock, options?.countAloneWhenUnreachable ?? false, logger);
}

/**
 * Several processes on one SQLite file (src/topology/supervised.ts): the supervisor's counters, one limiter per scope
 * and window on one clock, which its own app spends from and every worker's requests do over IPC, so a limit holds
 * exactly however the requests are spread over the workers.
 */
export function sharedMemoryRateLimits(clock: () => Date = () => new Date()): RateLimits {
  const limiters = new Map<string, RateLimiter>();
  return (scope, windowMs) => {
    const id = `${scope}:${windowMs}`;
    let limiter = limiters.get(id);
    if (!limiter) limiters.set(id, (limiter = memoryLimiter(new FixedWindowLimiter(windowMs), clock)));
    return limiter;
  };
}

function memoryLimiter(windows: FixedWindowLimiter, clock: () => Date): RateLimiter {
  return {
    hit: async (budgets) => {
      const nowMs = clock().getTime();
      const decisions: RateDecision[] = [];
      for (const { key, limit } of budgets) {
        const decision = windows.hit(key, limit, nowMs);
        decisions.push(decision);
        if (!decision.allowed) break;
      }
      return decisions;
    },
  };
}

/** How long a request waits for the counter table before this instance decides it alone (a slow or hung database). */
const COUNT_TIMEOUT_MS = 1000;

/** A request waiting for its caller's next statement: answered by it, or decided alone at COUNT_TIMEOUT_MS. */
interface Waiter {
  resolve: (decisions: RateDecision[]) => void;
  fail: (err: unknown) => void;
}

/**
 * The requests of one caller (one list of budgets) on this instance: at most one statement in flight; the requests
 * that arrive meanwhile wait for the next, and those decided alone while they waited are still counted by it (`late`).
 */
interface Lane {
  budgets: Budget[];
  waiting: Waiter[];
  late: number;
  busy: boolean;
}

function counterTableLimiter(
  db: Db,
  scope: string,
  windowMs: number,
  clock: (() => Date) | undefined,
  countAlone: boolean,
  logger: Logger | undefined,
): RateLimiter {
  const now = clock ?? (() => new Date());
  const at = () => (clock ? clock().getTime() : null);
  // Each instance purges the windows that ended when it first counts in a new one: at most once a window.
  let lastWindowEnd = 0;
  // One caller's requests on this instance share a statement: those that arrive while one is in flight are counted
  // together by the next, so a burst costs a few row updates per budget and instance, not a queue on the row's lock.
  const lanes = new Map<string, Lane>();
  // The last count the table gave per budget, and what this instance decided alone since: a request the table does
  // not answer in time is decided on their sum (its hit still reaches the table), so a slow counter stays shared.
  const known = new Map<string, { hits: number; windowEnd: number }>();
  const alone = new FixedWindowLimiter(windowMs);
  let lateLogged = false;

  const decideAlone = (budgets: readonly Budget[]): RateDecision[] => {
    const nowMs = now().getTime();
    const decisions: RateDecision[] = [];
    for (const { key, limit } of budgets) {
      const own = alone.spend(key, nowMs);
      const base = known.get(key);
      const shared = base && base.windowEnd > nowMs ? base : undefined;
      const decision = decide(limit, (shared?.hits ?? 0) + own.count, shared?.windowEnd ?? own.windowEnd, nowMs);
      decisions.push(decision);
      if (!decision.allowed) break;
    }
    return decisions;
  };

  const run = async (lane: Lane, id: string) => {
    const batch = lane.waiting.splice(0);
    const late = lane.late;
    lane.late = 0;
    lane.busy = true;
    const keyed = lane.budgets.map((b) => ({ key: `${scope}:${b.key}`, limit: b.limit }));
    try {
      const { nowMs, counted } = await countHits(db, windowMs, at(), keyed, late + batch.length);
      lateLogged = false;
      counted.forEach(({ hits, windowEnd }, i) => {
        known.set(lane.budgets[i]!.key, { hits, windowEnd });
        alone.forget(lane.budgets[i]!.key);
      });
      // The late ones first: they came before those still waiting. Each request has its own place in the count.
      batch.forEach((waiter, j) => {
        const decisions: RateDecision[] = [];
        for (let i = 0; i < counted.length; i++) {
          const { hits, added, windowEnd } = counted[i]!;
          if (late + j >= added) break;
          const decision = decide(lane.budgets[i]!.limit, hits - added + 1 + late + j, windowEnd, nowMs);
          decisions.push(decision);
          if (!decision.allowed) break;
        }
        waiter.resolve(decisions);
      });
      const windowEnd = counted[0]?.windowEnd ?? 0;
      if (windowEnd > lastWindowEnd) {
        lastWindowEnd = windowEnd;
        for (const [key, count] of known) if (count.windowEnd <= nowMs) known.delete(key);
        // Off the request's path; a purge that fails is done by the next window's.
        purgeEndedWindows(db, at()).catch(() => {});
      }
    } catch (err) {
      for (const waiter of batch) waiter.fail(err);
    } finally {
      lane.busy = false;
      if (lane.waiting.length > 0 || lane.late > 0) void run(lane, id);
      else lanes.delete(id);
    }
  };

  return {
    hit: async (budgets, within) => {
      if (within) {
        // In the caller's transaction, alone, so that a rolled-back attempt is not counted; it fails with it.
        const keyed = budgets.map((b) => ({ key: `${scope}:${b.key}`, limit: b.limit }));
        const { nowMs, counted } = await countHits(within, windowMs, at(), keyed);
        return counted.map(({ hits, windowEnd }, i) => decide(budgets[i]!.limit, hits, windowEnd, nowMs));
      }
      const id = JSON.stringify(budgets.map((b) => [b.key, b.limit]));
      let lane = lanes.get(id);
      if (!lane) lanes.set(id, (lane = { budgets: [...budgets], waiting: [], late: 0, busy: false }));
      const own = lane;
      return new Promise<RateDecision[]>((resolve, reject) => {
        // Slow is not down: past COUNT_TIMEOUT_MS the request is decided here and goes on; its hit stays in the lane.
        const timer = setTimeout(() => {
          const index = own.waiting.indexOf(waiter);
          if (index >= 0) {
            own.waiting.splice(index, 1);
            own.late++;
          } else {
            // In the statement in flight, which counts it; its answer comes too late for this request.
            waiter.resolve = () => {};
            waiter.fail = () => {};
          }
          if (!lateLogged) {
            lateLogged = true;
            logger?.warn('rate counters late: deciding on this instance', { scope, timeout_ms: COUNT_TIMEOUT_MS });
          }
          resolve(decideAlone(budgets));
        }, COUNT_TIMEOUT_MS);
        const waiter: Waiter = {
          resolve: (decisions) => {
            clearTimeout(timer);
            resolve(decisions);
          },
          fail: (err) => {
            clearTimeout(timer);
            // A database that refuses: the request would fail anyway, and N instances counting alone would let N
            // times the limit by. A full disk: reads still work, so they are served, counted here.
            if (countAlone || storageFailure(err)?.kind === 'full') resolve(decideAlone(budgets));
            else reject(err);
          },
        };
        own.waiting.push(waiter);
        if (!own.busy) void run(own, id);
      });
    },
  };
}

function decide(limit: number, count: number, windowEndMs: number, nowMs: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.ceil(windowEndMs / 1000),
    retryAfter: Math.max(1, Math.ceil((windowEndMs - nowMs) / 1000)),
  };
}

/**
 * Fixed windows aligned to the clock (one minute unless told otherwise). Every key's window ends at the same
 * instant, so the counters are simply dropped when a new window starts: memory stays bounded by one window of callers.
 * In memory, per process.
 */
export class FixedWindowLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(readonly windowMs = 60_000) {}

  hit(key: string, limit: number, nowMs: number): RateDecision {
    const { count, windowEnd } = this.spend(key, nowMs);
    return decide(limit, count, windowEnd, nowMs);
  }

  /** Counts one request of `key`: its count in the current window, and when that window ends. */
  spend(key: string, nowMs: number): { count: number; windowEnd: number } {
    const windowStart = nowMs - (nowMs % this.windowMs);
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return { count, windowEnd: windowStart + this.windowMs };
  }

  forget(key: string): void {
    this.counts.delete(key);
  }
}

import { storageFailure } from '../db/engine.ts';
import { forDialect, type Db, type Tx } from '../db/index.ts';
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
 * `countAloneWhenUnreachable`: when the shared counters cannot be reached (PostgreSQL down or hung), this instance
 * counts alone instead of refusing, for the answers that must still come (/health saying the database is down).
 * Otherwise the request fails as the database does (503): N instances counting alone would let N times the limit by
 * (except on a full disk, where reads still work and are served, counted alone).
 */
export type RateLimits = (scope: string, windowMs: number, options?: { countAloneWhenUnreachable?: boolean }) => RateLimiter;

/**
 * The service's rate limiters. SQLite (one process): counters in memory, a restart opens a new window (several
 * processes: sharedMemoryRateLimits). PostgreSQL
 * (several instances): one counter table every instance spends from, one statement per request, windows on the
 * database's clock so that instances whose clocks differ agree. `clock`: a clock the windows follow instead (tests).
 */
export function createRateLimits(db: Db, clock?: () => Date): RateLimits {
  return forDialect<RateLimits>(db, {
    sqlite: (_scope, windowMs) => memoryLimiter(new FixedWindowLimiter(windowMs), clock ?? (() => new Date())),
    postgres: (scope, windowMs, options) => counterTableLimiter(db, scope, windowMs, clock, options?.countAloneWhenUnreachable ?? false),
  });
}

/**
 * SQLite served by several processes (src/cluster.ts): the supervisor's counters, one limiter per scope and window on
 * one clock, which its own app spends from and every worker's requests do over IPC, so a limit holds exactly however
 * the requests are spread over the workers.
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

/** How long a request waits for the counter table before this instance counts it alone (a hung database). */
const COUNT_TIMEOUT_MS = 1000;

/** No answer in time: an unreachable database, as postgres.js names a connection that timed out. */
const timedOut = (ms: number) =>
  new Promise<never>((_, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error(`the rate counters did not answer within ${ms} ms`), { code: 'CONNECT_TIMEOUT' })), ms);
    timer.unref?.();
  });

function counterTableLimiter(db: Db, scope: string, windowMs: number, clock: (() => Date) | undefined, countAlone: boolean): RateLimiter {
  // Each instance purges the windows that ended when it first counts in a new one: at most once a window.
  let lastWindowEnd = 0;
  // While the database cannot count (refused, or no answer within COUNT_TIMEOUT_MS), a limiter that may count alone
  // does (this instance's share only), so that the request goes on to the answer that names the real trouble (/health:
  // the database is down) instead of failing or hanging here.
  const fallback = memoryLimiter(new FixedWindowLimiter(windowMs), clock ?? (() => new Date()));
  return {
    hit: async (budgets, within) => {
      const atMs = clock ? clock().getTime() : null;
      const keyed = budgets.map((b) => ({ key: `${scope}:${b.key}`, limit: b.limit }));
      let result: Awaited<ReturnType<typeof countHits>>;
      try {
        result = within
          ? await countHits(within, windowMs, atMs, keyed)
          : await Promise.race([countHits(db, windowMs, atMs, keyed), timedOut(COUNT_TIMEOUT_MS)]);
      } catch (err) {
        if (within) throw err; // the transaction fails anyway, and may be re-run
        // Unreachable: the request would fail anyway, and N instances counting alone would let N times the limit by.
        // A full disk: reads still work, so they are served, counted here.
        if (!countAlone && storageFailure(err)?.kind !== 'full') throw err;
        return fallback.hit(budgets);
      }
      const { nowMs, counted } = result;
      const decisions = counted.map(({ hits, windowEnd }, i) => decide(budgets[i]!.limit, hits, windowEnd, nowMs));
      const windowEnd = counted[0]?.windowEnd ?? 0;
      if (!within && windowEnd > lastWindowEnd) {
        lastWindowEnd = windowEnd;
        // Off the request's path; a purge that fails is done by the next window's.
        purgeEndedWindows(db, atMs).catch(() => {});
      }
      return decisions;
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
    const windowStart = nowMs - (nowMs % this.windowMs);
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return decide(limit, count, windowStart + this.windowMs, nowMs);
  }
}

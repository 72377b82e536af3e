export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  reset: number;
  retryAfter: number;
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
    const resetMs = windowStart + this.windowMs;
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      reset: Math.ceil(resetMs / 1000),
      retryAfter: Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    };
  }
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  reset: number;
  retryAfter: number;
}

/**
 * Fixed one-minute windows aligned to the clock. Every key's window ends at the same instant, so the
 * counters are simply dropped when a new minute starts: memory stays bounded by one minute of callers.
 */
export class FixedWindowLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  hit(key: string, limit: number, nowMs: number): RateDecision {
    const windowStart = nowMs - (nowMs % 60_000);
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    const resetMs = windowStart + 60_000;
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      reset: Math.ceil(resetMs / 1000),
      retryAfter: Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    };
  }
}

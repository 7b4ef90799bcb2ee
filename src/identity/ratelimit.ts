/**
 * Per-key write limit as a sliding-window log: each key keeps the times of its admitted requests
 * within the last window, at most `limit` of them, so no span of `windowMs` ever admits more
 * than `limit` (a fixed window would let 2x through around its boundary). Memory is bounded by
 * keys x limit timestamps, and keys idle for a whole window are pruned.
 */

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  /** Slots left in the current window after this decision. */
  remaining: number;
  /**
   * When the oldest counted request leaves the window and frees a slot (for a refused request:
   * the earliest moment a retry can succeed); now when nothing is counted.
   */
  resetAt: Date;
  /** Whole seconds until resetAt, at least 1 when refused (for Retry-After); 0 when allowed. */
  retryAfterSeconds: number;
  windowSeconds: number;
}

export interface SlidingWindowLimiterOptions {
  limit?: number;
  windowMs?: number;
  /** Clock in epoch milliseconds; tests inject one. */
  now?: () => number;
  /** How often idle keys are dropped; 0 turns the timer off (call prune() yourself). */
  pruneIntervalMs?: number;
}

export const DEFAULT_WRITE_LIMIT = 30;
export const DEFAULT_WRITE_WINDOW_MS = 60_000;

export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  /** Admission times per key, oldest first. */
  private readonly log = new Map<string, number[]>();
  private readonly timer?: NodeJS.Timeout;

  constructor(opts: SlidingWindowLimiterOptions = {}) {
    this.limit = opts.limit ?? DEFAULT_WRITE_LIMIT;
    this.windowMs = opts.windowMs ?? DEFAULT_WRITE_WINDOW_MS;
    this.now = opts.now ?? Date.now;
    if (!Number.isInteger(this.limit) || this.limit < 1)
      throw new RangeError('limit must be a positive integer');
    if (!(this.windowMs > 0)) throw new RangeError('windowMs must be positive');
    const every = opts.pruneIntervalMs ?? this.windowMs;
    if (every > 0) {
      this.timer = setInterval(() => this.prune(), every);
      this.timer.unref();
    }
  }

  /** Counts one request for `key` when a slot is free; a refused request is not recorded. */
  consume(key: string): RateLimitResult {
    return this.decide(key, true);
  }

  /** The state `consume` would see, without counting anything. */
  peek(key: string): RateLimitResult {
    return this.decide(key, false);
  }

  /** Drops expired times and keys with none left. */
  prune(): void {
    const now = this.now();
    for (const [key, times] of this.log) {
      this.expire(times, now);
      if (times.length === 0) this.log.delete(key);
    }
  }

  /** Number of keys held (for tests and metrics). */
  get size(): number {
    return this.log.size;
  }

  /** Stops the prune timer. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private decide(key: string, record: boolean): RateLimitResult {
    const now = this.now();
    const times = this.log.get(key) ?? [];
    this.expire(times, now);
    const allowed = times.length < this.limit;
    if (allowed && record) {
      times.push(now);
      this.log.set(key, times);
    } else if (times.length === 0) {
      this.log.delete(key);
    }
    const resetMs = times.length > 0 ? times[0]! + this.windowMs : now;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - times.length),
      resetAt: new Date(resetMs),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetMs - now) / 1000)),
      windowSeconds: Math.round(this.windowMs / 1000),
    };
  }

  /** A time t counts while now - t < window: a request exactly one window later is admitted. */
  private expire(times: number[], now: number): void {
    let drop = 0;
    while (drop < times.length && now - times[drop]! >= this.windowMs) drop++;
    if (drop > 0) times.splice(0, drop);
  }
}

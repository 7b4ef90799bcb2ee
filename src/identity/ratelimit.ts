/**
 * Per-key write limit as a sliding-window log: each key keeps the times of its admitted requests
 * within the last window, at most `limit` of them, so no span of `windowMs` ever admits more
 * than `limit` (a fixed window would let 2x through around its boundary). The log lives in the
 * database behind WriteLimitStore, so every node of a deployment counts against one limit.
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

export const DEFAULT_WRITE_LIMIT = 30;
export const DEFAULT_WRITE_WINDOW_MS = 60_000;

/**
 * The answer for a key whose window holds `counted` admissions (this one included when allowed),
 * the oldest at `oldestAt` (undefined when none). A time t counts while now - t < window, so a
 * request exactly one window later is admitted. The counting itself is the WriteLimitStore's.
 */
export function windowDecision(
  allowed: boolean,
  counted: number,
  oldestAt: number | undefined,
  limit: number,
  windowMs: number,
  now: number,
): RateLimitResult {
  const resetMs = oldestAt !== undefined ? oldestAt + windowMs : now;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - counted),
    resetAt: new Date(resetMs),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetMs - now) / 1000)),
    windowSeconds: Math.round(windowMs / 1000),
  };
}

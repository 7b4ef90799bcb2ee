import type { QuotaResult } from './quota.js';
import type { RateLimitResult } from './ratelimit.js';

/**
 * RateLimit-Policy and RateLimit response headers in the style of the IETF httpapi
 * ratelimit-headers draft: one list item per policy, e.g.
 *   RateLimit-Policy: "writes";q=30;w=60, "conversions";q=20;w=86400
 *   RateLimit: "writes";r=29;t=60, "conversions";r=19;t=43200
 */

export interface LimitState {
  /** Policy name, e.g. `writes`, `conversions`. */
  name: string;
  /** Quota units per window (q). */
  limit: number;
  /** Window length in seconds (w). */
  windowSeconds: number;
  /** Units left (r). */
  remaining: number;
  /** When units come back (t is the seconds until then). */
  resetAt: Date | string;
}

export const DAY_SECONDS = 86_400;

/** The per-minute limiter's answer as a policy state. */
export function limiterState(name: string, result: RateLimitResult): LimitState {
  return {
    name,
    limit: result.limit,
    windowSeconds: result.windowSeconds,
    remaining: result.remaining,
    resetAt: result.resetAt,
  };
}

/** A daily quota's answer as a policy state. */
export function quotaState(name: string, result: QuotaResult): LimitState {
  return {
    name,
    limit: result.limit,
    windowSeconds: DAY_SECONDS,
    remaining: result.remaining,
    resetAt: result.resetAt,
  };
}

/** Both headers for the given policies; empty when there are none. */
export function rateLimitHeaders(
  states: readonly LimitState[],
  now: Date | number = Date.now(),
): Record<string, string> {
  if (states.length === 0) return {};
  const nowMs = new Date(now).getTime();
  return {
    'RateLimit-Policy': states
      .map((s) => `${sfString(s.name)};q=${int(s.limit)};w=${int(s.windowSeconds)}`)
      .join(', '),
    RateLimit: states
      .map((s) => {
        const seconds = Math.max(0, Math.ceil((new Date(s.resetAt).getTime() - nowMs) / 1000));
        return `${sfString(s.name)};r=${int(s.remaining)};t=${seconds}`;
      })
      .join(', '),
  };
}

/** Retry-After in whole seconds until `resetAt`, at least 1. */
export function retryAfterSeconds(resetAt: Date | string, now: Date | number = Date.now()): number {
  return Math.max(1, Math.ceil((new Date(resetAt).getTime() - new Date(now).getTime()) / 1000));
}

/** Structured-field sf-string: printable ASCII with `"` and `\` escaped. */
function sfString(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '');
  return `"${printable.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Structured-field integers are non-negative here. */
function int(n: number): number {
  return Math.max(0, Math.floor(n));
}

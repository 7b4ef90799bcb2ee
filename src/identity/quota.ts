/**
 * Daily quotas per identity: what a decision says and which UTC day it counts on. The counting
 * itself is the records store's (`QuotaStore` in src/store/types.ts), on SQLite or PostgreSQL,
 * so every server process sees one number.
 */

export type QuotaKind = 'conversions' | 'voice' | 'file_checks';

export interface QuotaResult {
  allowed: boolean;
  limit: number;
  /** Units left today after this decision. */
  remaining: number;
  /** Next midnight UTC, ISO 8601. */
  resetAt: string;
  /** The UTC day (YYYY-MM-DD) the unit was drawn from; pass it to refund(). */
  day: string;
}

/** The UTC calendar day of `now` as YYYY-MM-DD. */
export function utcDay(now: Date | number = Date.now()): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The next midnight UTC after `now`, ISO 8601. */
export function nextUtcMidnight(now: Date | number = Date.now()): string {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

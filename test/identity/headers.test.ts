import { describe, expect, it } from 'vitest';
import { limiterState, quotaState, rateLimitHeaders, retryAfterSeconds } from '../../src/identity/headers.js';
import { windowDecision } from '../../src/identity/ratelimit.js';

describe('rateLimitHeaders', () => {
  it('writes one policy item and one state item per limit', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    // The first write of a window of 30 per minute.
    const writes = limiterState('writes', windowDecision(true, 1, now, 30, 60_000, now));
    const conversions = quotaState('conversions', {
      allowed: true,
      limit: 20,
      remaining: 19,
      resetAt: '2026-03-11T00:00:00.000Z',
      day: '2026-03-10',
    });
    expect(rateLimitHeaders([writes, conversions], now)).toEqual({
      'RateLimit-Policy': '"writes";q=30;w=60, "conversions";q=20;w=86400',
      RateLimit: '"writes";r=29;t=60, "conversions";r=19;t=43200',
    });
  });

  it('never writes a negative or fractional number and escapes names', () => {
    const now = 1_000_500;
    const h = rateLimitHeaders(
      [{ name: 'a"b', limit: 5, windowSeconds: 60, remaining: -2, resetAt: new Date(1_000_000) }],
      now,
    );
    expect(h).toEqual({ 'RateLimit-Policy': '"a\\"b";q=5;w=60', RateLimit: '"a\\"b";r=0;t=0' });
    expect(rateLimitHeaders([])).toEqual({});
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(new Date(10_001), 0)).toBe(11);
    expect(retryAfterSeconds(new Date(0), 5000)).toBe(1);
  });
});

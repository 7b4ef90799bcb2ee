import { afterEach, describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../../src/identity/ratelimit.js';

const limiters: SlidingWindowLimiter[] = [];
afterEach(() => {
  for (const l of limiters.splice(0)) l.close();
});

function limiterAt(startMs = 0) {
  const clock = { t: startMs };
  const limiter = new SlidingWindowLimiter({
    limit: 30,
    windowMs: 60_000,
    now: () => clock.t,
    pruneIntervalMs: 0,
  });
  limiters.push(limiter);
  return { limiter, clock };
}

describe('SlidingWindowLimiter', () => {
  it('admits 30 and refuses the 31st within a minute', () => {
    const { limiter, clock } = limiterAt();
    for (let i = 0; i < 30; i++) {
      clock.t = i * 1000;
      const r = limiter.consume('203.0.113.7');
      expect(r.allowed).toBe(true);
      expect(r.remaining).toBe(29 - i);
    }
    clock.t = 30_000;
    const refused = limiter.consume('203.0.113.7');
    expect(refused).toMatchObject({ allowed: false, limit: 30, remaining: 0, retryAfterSeconds: 30 });
    expect(refused.resetAt.getTime()).toBe(60_000);
    // Another key is not affected.
    expect(limiter.consume('198.51.100.1').allowed).toBe(true);
  });

  it('never lets a 60 s span admit more than 30 at the window boundary', () => {
    const { limiter, clock } = limiterAt();
    // 10 early, 20 at t=59.9 s.
    clock.t = 0;
    for (let i = 0; i < 10; i++) expect(limiter.consume('k').allowed).toBe(true);
    clock.t = 59_900;
    for (let i = 0; i < 20; i++) expect(limiter.consume('k').allowed).toBe(true);
    expect(limiter.consume('k').allowed).toBe(false);

    // At 60.1 s only the 10 from t=0 have left the window.
    clock.t = 60_100;
    let admitted = 0;
    for (let i = 0; i < 40; i++) if (limiter.consume('k').allowed) admitted++;
    expect(admitted).toBe(10);
    const refused = limiter.consume('k');
    expect(refused.allowed).toBe(false);
    expect(refused.resetAt.getTime()).toBe(59_900 + 60_000);
    expect(refused.retryAfterSeconds).toBe(60);
  });

  it('holds the invariant under a random schedule', () => {
    const { limiter, clock } = limiterAt();
    const admittedAt: number[] = [];
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 5000; i++) {
      clock.t += Math.floor(rand() * 4000);
      if (limiter.consume('k').allowed) admittedAt.push(clock.t);
    }
    // Every half-open span [a, a + 60 s) starting at an admission holds at most 30 admissions.
    for (let i = 0; i < admittedAt.length; i++) {
      let j = i;
      while (j < admittedAt.length && admittedAt[j]! - admittedAt[i]! < 60_000) j++;
      expect(j - i).toBeLessThanOrEqual(30);
    }
    expect(admittedAt.length).toBeGreaterThan(100);
  });

  it('does not count refused requests, and peek counts nothing', () => {
    const { limiter, clock } = limiterAt();
    for (let i = 0; i < 30; i++) limiter.consume('k');
    for (let i = 0; i < 100; i++) limiter.consume('k');
    clock.t = 60_000;
    expect(limiter.peek('k')).toMatchObject({ allowed: true, remaining: 30 });
    expect(limiter.peek('k').remaining).toBe(30);
    expect(limiter.consume('k').remaining).toBe(29);
  });

  it('reports the reset of the oldest counted request', () => {
    const { limiter, clock } = limiterAt(1_000_000);
    const first = limiter.consume('k');
    expect(first.resetAt.getTime()).toBe(1_060_000);
    clock.t = 1_030_000;
    expect(limiter.consume('k').resetAt.getTime()).toBe(1_060_000);
    expect(limiter.peek('fresh').resetAt.getTime()).toBe(1_030_000);
  });

  it('prunes idle keys so memory stays bounded', () => {
    const { limiter, clock } = limiterAt();
    for (let i = 0; i < 1000; i++) limiter.consume(`ip-${i}`);
    expect(limiter.size).toBe(1000);
    clock.t = 30_000;
    limiter.consume('late');
    limiter.prune();
    expect(limiter.size).toBe(1001);
    clock.t = 60_000;
    limiter.prune();
    expect(limiter.size).toBe(1);
    clock.t = 90_000;
    limiter.prune();
    expect(limiter.size).toBe(0);
    // peek does not create entries.
    limiter.peek('nobody');
    expect(limiter.size).toBe(0);
  });

  it('rejects nonsense settings', () => {
    expect(() => new SlidingWindowLimiter({ limit: 0, pruneIntervalMs: 0 })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ windowMs: 0, pruneIntervalMs: 0 })).toThrow(RangeError);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteRecords } from '../../src/store/sqlite-records.js';
import type { Records } from '../../src/store/types.js';

const opened: { records: Records; dir: string }[] = [];
afterEach(async () => {
  for (const { records, dir } of opened.splice(0)) {
    await records.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A write limit of 30 a minute on a fresh database, with a clock the test moves. */
function limiterAt(startMs = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-ratelimit-'));
  const records = openSqliteRecords(join(dir, 'fileconv.db'));
  opened.push({ records, dir });
  const clock = { t: startMs };
  const consume = (key: string) => records.writeLimits.admit(key, 30, 60_000, clock.t);
  return { consume, clock };
}

describe('per-minute write limit (sliding window in the database)', () => {
  it('admits 30 and refuses the 31st within a minute', async () => {
    const { consume, clock } = limiterAt();
    for (let i = 0; i < 30; i++) {
      clock.t = i * 1000;
      const r = await consume('203.0.113.7');
      expect(r.allowed).toBe(true);
      expect(r.remaining).toBe(29 - i);
    }
    clock.t = 30_000;
    const refused = await consume('203.0.113.7');
    expect(refused).toMatchObject({ allowed: false, limit: 30, remaining: 0, retryAfterSeconds: 30 });
    expect(refused.resetAt.getTime()).toBe(60_000);
    // Another key is not affected.
    expect((await consume('198.51.100.1')).allowed).toBe(true);
  });

  it('never lets a 60 s span admit more than 30 at the window boundary', async () => {
    const { consume, clock } = limiterAt();
    // 10 early, 20 at t=59.9 s.
    clock.t = 0;
    for (let i = 0; i < 10; i++) expect((await consume('k')).allowed).toBe(true);
    clock.t = 59_900;
    for (let i = 0; i < 20; i++) expect((await consume('k')).allowed).toBe(true);
    expect((await consume('k')).allowed).toBe(false);

    // At 60.1 s only the 10 from t=0 have left the window.
    clock.t = 60_100;
    let admitted = 0;
    for (let i = 0; i < 40; i++) if ((await consume('k')).allowed) admitted++;
    expect(admitted).toBe(10);
    const refused = await consume('k');
    expect(refused.allowed).toBe(false);
    expect(refused.resetAt.getTime()).toBe(59_900 + 60_000);
    expect(refused.retryAfterSeconds).toBe(60);
  });

  it('holds the invariant under a random schedule', async () => {
    const { consume, clock } = limiterAt();
    const admittedAt: number[] = [];
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 2000; i++) {
      clock.t += Math.floor(rand() * 4000);
      if ((await consume('k')).allowed) admittedAt.push(clock.t);
    }
    // Every half-open span [a, a + 60 s) starting at an admission holds at most 30 admissions.
    for (let i = 0; i < admittedAt.length; i++) {
      let j = i;
      while (j < admittedAt.length && admittedAt[j]! - admittedAt[i]! < 60_000) j++;
      expect(j - i).toBeLessThanOrEqual(30);
    }
    expect(admittedAt.length).toBeGreaterThan(100);
  });

  it('does not count refused requests', async () => {
    const { consume, clock } = limiterAt();
    for (let i = 0; i < 30; i++) await consume('k');
    for (let i = 0; i < 100; i++) await consume('k');
    clock.t = 60_000;
    expect(await consume('k')).toMatchObject({ allowed: true, remaining: 29 });
  });

  it('reports the reset of the oldest counted request', async () => {
    const { consume, clock } = limiterAt(1_000_000);
    const first = await consume('k');
    expect(first.resetAt.getTime()).toBe(1_060_000);
    clock.t = 1_030_000;
    expect((await consume('k')).resetAt.getTime()).toBe(1_060_000);
  });

  it('admits exactly the limit to 50 writes racing on one key', async () => {
    const { consume } = limiterAt(5_000);
    const results = await Promise.all(Array.from({ length: 50 }, () => consume('race')));
    expect(results.filter((r) => r.allowed)).toHaveLength(30);
  });
});

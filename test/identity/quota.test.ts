import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nextUtcMidnight, utcDay } from '../../src/identity/quota.js';
import { openSqliteRecords } from '../../src/store/sqlite-records.js';
import type { Records } from '../../src/store/types.js';

// The quota rules as a caller meets them, on the embedded records store; the contract suite
// (test/store/contract/records.ts) runs the same store on SQLite and PostgreSQL.

const opened: { records: Records; dir: string }[] = [];
afterEach(async () => {
  for (const { records, dir } of opened.splice(0)) {
    await records.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function openRecords(): { quotas: Records['quotas']; path: string; records: Records } {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-quota-'));
  const path = join(dir, 'records.sqlite');
  const records = openSqliteRecords(path);
  opened.push({ records, dir });
  return { quotas: records.quotas, path, records };
}

const WORKER = fileURLToPath(new URL('./quota-worker.ts', import.meta.url));

describe('daily quota', () => {
  it('counts up to the limit and then refuses', async () => {
    const { quotas } = openRecords();
    const now = Date.parse('2026-03-10T15:30:00Z');
    const take = (identity = 'ip:198.51.100.9', kind: 'conversions' | 'voice' = 'conversions') =>
      quotas.consume(identity, kind, 3, now);
    expect(await take()).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetAt: '2026-03-11T00:00:00.000Z',
      day: '2026-03-10',
    });
    expect((await take()).remaining).toBe(1);
    expect((await take()).remaining).toBe(0);
    expect(await take()).toMatchObject({ allowed: false, remaining: 0 });
    // Kinds and identities are counted apart.
    expect((await take('ip:198.51.100.9', 'voice')).allowed).toBe(true);
    expect((await take('key:k1')).allowed).toBe(true);
  });

  it('starts afresh at midnight UTC', async () => {
    const { quotas } = openRecords();
    const at = (iso: string) => quotas.consume('ip:a', 'file_checks', 1, Date.parse(iso));
    expect((await at('2026-03-10T23:59:59.999Z')).allowed).toBe(true);
    expect((await at('2026-03-10T23:59:59.999Z')).allowed).toBe(false);
    expect(await at('2026-03-11T00:00:00.000Z')).toMatchObject({
      allowed: true,
      day: '2026-03-11',
      resetAt: '2026-03-12T00:00:00.000Z',
    });
  });

  it('computes the next midnight UTC across month and year ends', () => {
    expect(nextUtcMidnight(Date.parse('2026-12-31T23:00:00Z'))).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcMidnight(Date.parse('2028-02-28T00:00:00Z'))).toBe('2028-02-29T00:00:00.000Z');
    expect(nextUtcMidnight(Date.parse('2026-03-10T00:00:00Z'))).toBe('2026-03-11T00:00:00.000Z');
    expect(utcDay(Date.parse('2026-03-10T23:59:59.999-01:00'))).toBe('2026-03-11');
  });

  it('refunds a unit to the day it was drawn from, never below zero', async () => {
    const { quotas } = openRecords();
    const now = Date.parse('2026-03-10T23:59:00Z');
    await quotas.consume('ip:a', 'conversions', 2, now);
    const second = await quotas.consume('ip:a', 'conversions', 2, now);
    expect((await quotas.consume('ip:a', 'conversions', 2, now)).allowed).toBe(false);
    expect(await quotas.refund('ip:a', { kind: 'conversions', day: second.day })).toBe(true);
    expect((await quotas.peek('ip:a', 'conversions', 2, now)).remaining).toBe(1);
    expect((await quotas.consume('ip:a', 'conversions', 2, now)).allowed).toBe(true);
    expect(await quotas.refund('ip:a', { kind: 'conversions', day: '2026-03-09' })).toBe(false);
    expect(await quotas.refund('ip:a', { kind: 'voice', day: second.day })).toBe(false);
  });

  it('refuses everything with a limit of zero', async () => {
    const { quotas } = openRecords();
    expect((await quotas.consume('ip:a', 'voice', 0)).allowed).toBe(false);
    expect((await quotas.peek('ip:a', 'voice', 0)).remaining).toBe(0);
  });

  it('never grants more than what is left to 40 consumers racing in 4 processes', async () => {
    const { quotas, path, records } = openRecords();
    const limit = 25;
    // 5 already used today: 20 left.
    for (let i = 0; i < 5; i++) await quotas.consume('ip:203.0.113.7', 'conversions', limit);

    const children = Array.from({ length: 4 }, () =>
      fork(WORKER, [path, '10', String(limit)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' }),
    );
    await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))));
    const results = children.map(
      (c) =>
        new Promise<number>((resolve, reject) => {
          c.once('message', (m) => resolve((m as { granted: number }).granted));
          c.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
        }),
    );
    for (const c of children) c.send('go');
    const granted = await Promise.all(results);

    expect(granted.reduce((a, b) => a + b, 0)).toBe(20);
    expect(await records.quotas.peek('ip:203.0.113.7', 'conversions', limit)).toMatchObject({
      allowed: false,
      remaining: 0,
    });
  });
});

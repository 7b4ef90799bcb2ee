import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  consume,
  nextUtcMidnight,
  peek,
  pruneQuotaDays,
  QUOTA_SCHEMA_SQL,
  refund,
  utcDay,
} from '../../src/identity/quota.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function openDb(): { db: Database.Database; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-quota-'));
  dirs.push(dir);
  const path = join(dir, 'quota.sqlite');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.exec(QUOTA_SCHEMA_SQL);
  return { db, path };
}

const WORKER = fileURLToPath(new URL('./quota-worker.ts', import.meta.url));

describe('daily quota', () => {
  it('counts up to the limit and then refuses', () => {
    const { db } = openDb();
    const now = Date.parse('2026-03-10T15:30:00Z');
    const req = { identity: 'ip:198.51.100.9', kind: 'conversions' as const, limit: 3, now };
    expect(consume(db, req)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetAt: '2026-03-11T00:00:00.000Z',
      day: '2026-03-10',
    });
    expect(consume(db, req).remaining).toBe(1);
    expect(consume(db, req).remaining).toBe(0);
    expect(consume(db, req)).toMatchObject({ allowed: false, remaining: 0 });
    // Kinds and identities are counted apart.
    expect(consume(db, { ...req, kind: 'voice' }).allowed).toBe(true);
    expect(consume(db, { ...req, identity: 'key:k1' }).allowed).toBe(true);
    db.close();
  });

  it('starts afresh at midnight UTC', () => {
    const { db } = openDb();
    const req = { identity: 'ip:a', kind: 'file_checks' as const, limit: 1 };
    expect(consume(db, { ...req, now: Date.parse('2026-03-10T23:59:59.999Z') }).allowed).toBe(true);
    expect(consume(db, { ...req, now: Date.parse('2026-03-10T23:59:59.999Z') }).allowed).toBe(false);
    const next = consume(db, { ...req, now: Date.parse('2026-03-11T00:00:00.000Z') });
    expect(next).toMatchObject({ allowed: true, day: '2026-03-11', resetAt: '2026-03-12T00:00:00.000Z' });
    db.close();
  });

  it('computes the next midnight UTC across month and year ends', () => {
    expect(nextUtcMidnight(Date.parse('2026-12-31T23:00:00Z'))).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcMidnight(Date.parse('2028-02-28T00:00:00Z'))).toBe('2028-02-29T00:00:00.000Z');
    expect(nextUtcMidnight(Date.parse('2026-03-10T00:00:00Z'))).toBe('2026-03-11T00:00:00.000Z');
    expect(utcDay(Date.parse('2026-03-10T23:59:59.999-01:00'))).toBe('2026-03-11');
  });

  it('refunds a unit to the day it was drawn from', () => {
    const { db } = openDb();
    const now = Date.parse('2026-03-10T23:59:00Z');
    const req = { identity: 'ip:a', kind: 'conversions' as const, limit: 2, now };
    consume(db, req);
    const second = consume(db, req);
    expect(consume(db, req).allowed).toBe(false);
    expect(refund(db, { identity: 'ip:a', kind: 'conversions', day: second.day })).toBe(true);
    expect(peek(db, req).remaining).toBe(1);
    expect(consume(db, req).allowed).toBe(true);
    // Nothing to give back for a day with no use; the count never goes below zero.
    expect(refund(db, { identity: 'ip:a', kind: 'conversions', day: '2026-03-09' })).toBe(false);
    expect(refund(db, { identity: 'ip:a', kind: 'voice', day: second.day })).toBe(false);
    db.close();
  });

  it('refuses everything with a limit of zero and prunes old days', () => {
    const { db } = openDb();
    expect(consume(db, { identity: 'ip:a', kind: 'voice', limit: 0 }).allowed).toBe(false);
    consume(db, { identity: 'ip:a', kind: 'voice', limit: 5, now: Date.parse('2026-01-01T12:00:00Z') });
    consume(db, { identity: 'ip:a', kind: 'voice', limit: 5, now: Date.parse('2026-01-02T12:00:00Z') });
    expect(pruneQuotaDays(db, '2026-01-02')).toBe(1);
    db.close();
  });

  it('never grants more than what is left to 40 consumers racing in 4 processes', async () => {
    const { db, path } = openDb();
    const limit = 25;
    // 5 already used today: 20 left.
    for (let i = 0; i < 5; i++) consume(db, { identity: 'ip:203.0.113.7', kind: 'conversions', limit });
    db.close();

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
    const check = new Database(path);
    const row = check.prepare('SELECT used FROM quota_usage WHERE identity = ?').get('ip:203.0.113.7') as {
      used: number;
    };
    check.close();
    expect(row.used).toBe(limit);
  });
});

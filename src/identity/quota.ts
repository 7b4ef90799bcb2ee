import type { Database, Statement } from 'better-sqlite3';

/**
 * Daily quotas per identity, counted in SQLite so every server process sees one number. The
 * check and the count happen in one IMMEDIATE transaction (the write lock is taken before the
 * read), so concurrent consumers can never both see the last unit as free.
 */

export type QuotaKind = 'conversions' | 'voice' | 'file_checks';

/** Schema for the server's versioned migrations. */
export const QUOTA_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS quota_usage (
  identity TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('conversions', 'voice', 'file_checks')),
  day TEXT NOT NULL,
  used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (identity, kind, day)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS quota_usage_day ON quota_usage (day);
`;

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

export interface QuotaRequest {
  /** Who is metered, e.g. `ip:203.0.113.7` or `key:<key id>`. */
  identity: string;
  kind: QuotaKind;
  limit: number;
  now?: Date | number;
}

const statementCache = new WeakMap<Database, Map<string, Statement>>();

/** Prepares each statement once per connection. */
function statement(db: Database, sql: string): Statement {
  let cache = statementCache.get(db);
  if (!cache) {
    cache = new Map();
    statementCache.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
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

/** Takes one unit of today's quota when one is left. */
export function consume(db: Database, req: QuotaRequest): QuotaResult {
  const now = req.now ?? Date.now();
  const day = utcDay(now);
  const take = db.transaction(() => {
    // Increments only below the limit; `changes` says whether a unit was taken.
    const info = statement(
      db,
      `INSERT INTO quota_usage (identity, kind, day, used) SELECT ?, ?, ?, 1 WHERE ? > 0
         ON CONFLICT (identity, kind, day) DO UPDATE SET used = used + 1 WHERE used < ?`,
    ).run(req.identity, req.kind, day, req.limit, req.limit);
    return { allowed: info.changes === 1, used: readUsed(db, req.identity, req.kind, day) };
  });
  const { allowed, used } = take.immediate();
  return {
    allowed,
    limit: req.limit,
    remaining: Math.max(0, req.limit - used),
    resetAt: nextUtcMidnight(now),
    day,
  };
}

/** Today's standing without taking anything (for headers on reads). */
export function peek(db: Database, req: QuotaRequest): QuotaResult {
  const now = req.now ?? Date.now();
  const day = utcDay(now);
  const used = readUsed(db, req.identity, req.kind, day);
  return {
    allowed: used < req.limit,
    limit: req.limit,
    remaining: Math.max(0, req.limit - used),
    resetAt: nextUtcMidnight(now),
    day,
  };
}

/** Gives back one unit drawn on `day` (a failed conversion). Returns false when none was counted. */
export function refund(db: Database, req: { identity: string; kind: QuotaKind; day: string }): boolean {
  const info = statement(
    db,
    'UPDATE quota_usage SET used = used - 1 WHERE identity = ? AND kind = ? AND day = ? AND used > 0',
  ).run(req.identity, req.kind, req.day);
  return info.changes === 1;
}

/** Deletes counters of days before `beforeDay` (YYYY-MM-DD); returns how many rows went. */
export function pruneQuotaDays(db: Database, beforeDay: string): number {
  return statement(db, 'DELETE FROM quota_usage WHERE day < ?').run(beforeDay).changes;
}

function readUsed(db: Database, identity: string, kind: QuotaKind, day: string): number {
  const row = statement(db, 'SELECT used FROM quota_usage WHERE identity = ? AND kind = ? AND day = ?').get(
    identity,
    kind,
    day,
  ) as { used: number } | undefined;
  return row?.used ?? 0;
}

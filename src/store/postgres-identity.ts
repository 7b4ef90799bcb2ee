import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { nextUtcMidnight, type QuotaKind, type QuotaResult, utcDay } from '../identity/quota.js';
import { type RateLimitResult, windowDecision } from '../identity/ratelimit.js';
import { transaction } from './postgres-db.js';
import type { ApiKeyRecord, KeyStore, QuotaDraw, QuotaStore, SecretStore, WriteLimitStore } from './types.js';

interface KeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

const KEY_COLUMNS = 'id, prefix, label, created_at, last_used_at, revoked_at';

function toKey(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    label: r.label ?? undefined,
    prefix: r.prefix,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at ?? undefined,
    revokedAt: r.revoked_at ?? undefined,
  };
}

/** API keys in PostgreSQL; every lookup reads the table, so a revocation on one node holds on all. */
export class PostgresKeyStore implements KeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async createKey(key: { id: string; hash: string; prefix: string; label?: string; createdAt: number }) {
    await this.pool.query(
      'INSERT INTO api_keys (id, hash, prefix, label, created_at) VALUES ($1, $2, $3, $4, $5)',
      [key.id, key.hash, key.prefix, key.label ?? null, key.createdAt],
    );
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, seq`,
    );
    return rows.map(toKey);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`, [
      hash,
    ]);
    return rows[0] && toKey(rows[0]);
  }

  async revokeKey(id: string, now: number): Promise<boolean> {
    // COALESCE keeps the first revocation time; the row count says whether the key exists.
    const revoked = await this.pool.query(
      'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2',
      [now, id],
    );
    return (revoked.rowCount ?? 0) > 0;
  }

  async touchKey(id: string, now: number): Promise<void> {
    await this.pool.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [now, id]);
  }
}

/**
 * Daily quotas in PostgreSQL. consume is one INSERT .. ON CONFLICT DO UPDATE .. WHERE used < limit:
 * the row lock it takes makes concurrent consumers on any node queue up, and the condition is
 * checked against the newest count, so the last unit is given out once.
 */
export class PostgresQuotaStore implements QuotaStore {
  constructor(private readonly pool: pg.Pool) {}

  async consume(
    identity: string,
    kind: QuotaKind,
    limit: number,
    now: number = Date.now(),
  ): Promise<QuotaResult> {
    const day = utcDay(now);
    const { rows } = await this.pool.query<{ used: number }>(
      `INSERT INTO quota_usage AS q (identity, kind, day, used) SELECT $1, $2, $3, 1 WHERE $4::integer > 0
         ON CONFLICT (identity, kind, day) DO UPDATE SET used = q.used + 1 WHERE q.used < $4::integer
         RETURNING used`,
      [identity, kind, day, limit],
    );
    const taken = rows[0];
    // Refused means the count is at (or past) the limit: nothing remains.
    const remaining = taken ? Math.max(0, limit - taken.used) : 0;
    return { allowed: taken !== undefined, limit, remaining, resetAt: nextUtcMidnight(now), day };
  }

  async peek(
    identity: string,
    kind: QuotaKind,
    limit: number,
    now: number = Date.now(),
  ): Promise<QuotaResult> {
    const day = utcDay(now);
    const { rows } = await this.pool.query<{ used: number }>(
      'SELECT used FROM quota_usage WHERE identity = $1 AND kind = $2 AND day = $3',
      [identity, kind, day],
    );
    const used = rows[0]?.used ?? 0;
    return {
      allowed: used < limit,
      limit,
      remaining: Math.max(0, limit - used),
      resetAt: nextUtcMidnight(now),
      day,
    };
  }

  async refund(identity: string, draw: QuotaDraw): Promise<boolean> {
    const refunded = await this.pool.query(
      'UPDATE quota_usage SET used = used - 1 WHERE identity = $1 AND kind = $2 AND day = $3 AND used > 0',
      [identity, draw.kind, draw.day],
    );
    return refunded.rowCount === 1;
  }
}

/**
 * The write limit's sliding-window log in PostgreSQL. Counting and recording for one key run in a
 * transaction holding that key's advisory lock, so nodes admitting at once never pass the limit.
 * Admissions are only ever inserted there; expired ones are pruned by a separate statement, at
 * most once a window per process, which takes no lock an admission waits for.
 */
export class PostgresWriteLimitStore implements WriteLimitStore {
  private prunedAt = 0;

  constructor(private readonly pool: pg.Pool) {}

  async admit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
    const since = now - windowMs;
    const result = await transaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('fileconv.write-limit:' || $1, 0))`, [
        key,
      ]);
      const { rows } = await client.query<{ n: number; oldest: number | null }>(
        'SELECT count(*) AS n, min(at) AS oldest FROM write_admissions WHERE key = $1 AND at > $2',
        [key, since],
      );
      const seen = rows[0]!;
      const allowed = seen.n < limit;
      if (allowed) await client.query('INSERT INTO write_admissions (key, at) VALUES ($1, $2)', [key, now]);
      const oldest = seen.oldest ?? (allowed ? now : undefined);
      return windowDecision(allowed, seen.n + (allowed ? 1 : 0), oldest, limit, windowMs, now);
    });
    if (now - this.prunedAt >= windowMs) {
      this.prunedAt = now;
      await this.pool.query('DELETE FROM write_admissions WHERE at <= $1', [since]).catch(() => {});
    }
    return result;
  }
}

/** Shared secrets in PostgreSQL: the first insert on any node wins, every later read sees it. */
export class PostgresSecretStore implements SecretStore {
  constructor(private readonly pool: pg.Pool) {}

  async secret(name: string, initial?: Buffer): Promise<Buffer> {
    await this.pool.query(
      'INSERT INTO secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, initial ?? randomBytes(32), Date.now()],
    );
    const { rows } = await this.pool.query<{ value: Buffer }>('SELECT value FROM secrets WHERE name = $1', [
      name,
    ]);
    return rows[0]!.value;
  }
}

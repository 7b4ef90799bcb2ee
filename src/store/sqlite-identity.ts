import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { consume, peek, type QuotaKind, type QuotaResult, refund } from '../identity/quota.js';
import { type RateLimitResult, windowDecision } from '../identity/ratelimit.js';
import { statements } from './sqlite-db.js';
import type { ApiKeyRecord, KeyStore, QuotaDraw, QuotaStore, SecretStore, WriteLimitStore } from './types.js';

interface KeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

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

const KEY_COLUMNS = 'id, prefix, label, created_at, last_used_at, revoked_at';

/**
 * API keys in the metadata database. Every lookup reads the table, so a key revoked by
 * `fileconv keys revoke` (another process) is refused by a running server on its next request.
 */
export class SqliteKeyStore implements KeyStore {
  private readonly sql: (sql: string) => Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.sql = statements(db);
  }

  async createKey(key: {
    id: string;
    hash: string;
    prefix: string;
    label?: string;
    createdAt: number;
  }): Promise<void> {
    this.sql('INSERT INTO api_keys (id, hash, prefix, label, created_at) VALUES (?, ?, ?, ?, ?)').run(
      key.id,
      key.hash,
      key.prefix,
      key.label ?? null,
      key.createdAt,
    );
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const rows = this.sql(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, rowid`).all() as KeyRow[];
    return rows.map(toKey);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = this.sql(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = ?`).get(hash) as
      | KeyRow
      | undefined;
    return row && toKey(row);
  }

  async revokeKey(id: string, now: number): Promise<boolean> {
    return this.db.transaction(() => {
      const exists = this.sql('SELECT 1 FROM api_keys WHERE id = ?').get(id) !== undefined;
      if (exists)
        this.sql('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id);
      return exists;
    })();
  }

  async touchKey(id: string, now: number): Promise<void> {
    this.sql('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(now, id);
  }
}

/** Daily quotas in the metadata database, through identity/quota.ts (atomic check-and-count). */
export class SqliteQuotaStore implements QuotaStore {
  constructor(private readonly db: Database.Database) {}

  async consume(identity: string, kind: QuotaKind, limit: number, now?: number): Promise<QuotaResult> {
    return consume(this.db, { identity, kind, limit, now });
  }

  async peek(identity: string, kind: QuotaKind, limit: number, now?: number): Promise<QuotaResult> {
    return peek(this.db, { identity, kind, limit, now });
  }

  async refund(identity: string, draw: QuotaDraw): Promise<boolean> {
    return refund(this.db, { identity, kind: draw.kind, day: draw.day });
  }
}

/**
 * The write limit's sliding-window log in the metadata database. Expiring, counting and recording
 * run in one IMMEDIATE transaction, so processes sharing the file never admit more than the limit.
 * Rows older than the window are dropped for every key on each call (one window length per database).
 */
export class SqliteWriteLimitStore implements WriteLimitStore {
  private readonly sql: (sql: string) => Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.sql = statements(db);
  }

  async admit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
    const decide = this.db.transaction(() => {
      this.sql('DELETE FROM write_admissions WHERE at <= ?').run(now - windowMs);
      const seen = this.sql(
        'SELECT count(*) AS n, min(at) AS oldest FROM write_admissions WHERE key = ?',
      ).get(key) as { n: number; oldest: number | null };
      const allowed = seen.n < limit;
      if (allowed) this.sql('INSERT INTO write_admissions (key, at) VALUES (?, ?)').run(key, now);
      const counted = seen.n + (allowed ? 1 : 0);
      const oldest = seen.oldest ?? (allowed ? now : undefined);
      return windowDecision(allowed, counted, oldest, limit, windowMs, now);
    });
    return decide.immediate();
  }
}

/** Shared secrets in the metadata database: the first insert wins, every later read sees it. */
export class SqliteSecretStore implements SecretStore {
  private readonly sql: (sql: string) => Database.Statement;

  constructor(db: Database.Database) {
    this.sql = statements(db);
  }

  async secret(name: string, initial?: Buffer): Promise<Buffer> {
    this.sql(
      'INSERT INTO secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    ).run(name, initial ?? randomBytes(32), Date.now());
    return (this.sql('SELECT value FROM secrets WHERE name = ?').get(name) as { value: Buffer }).value;
  }
}

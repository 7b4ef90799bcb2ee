import type Database from 'better-sqlite3';
import { consume, peek, type QuotaKind, type QuotaResult, refund } from '../identity/quota.js';
import { statements } from './sqlite.js';
import type { ApiKeyRecord, KeyStore, QuotaDraw, QuotaStore } from './types.js';

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

  createKey(key: { id: string; hash: string; prefix: string; label?: string; createdAt: number }): void {
    this.sql('INSERT INTO api_keys (id, hash, prefix, label, created_at) VALUES (?, ?, ?, ?, ?)').run(
      key.id,
      key.hash,
      key.prefix,
      key.label ?? null,
      key.createdAt,
    );
  }

  listKeys(): ApiKeyRecord[] {
    const rows = this.sql(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, rowid`).all() as KeyRow[];
    return rows.map(toKey);
  }

  findByHash(hash: string): ApiKeyRecord | undefined {
    const row = this.sql(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = ?`).get(hash) as
      | KeyRow
      | undefined;
    return row && toKey(row);
  }

  revokeKey(id: string, now: number): boolean {
    return this.db.transaction(() => {
      const exists = this.sql('SELECT 1 FROM api_keys WHERE id = ?').get(id) !== undefined;
      if (exists)
        this.db
          .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
          .run(now, id);
      return exists;
    })();
  }

  touchKey(id: string, now: number): void {
    this.sql('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(now, id);
  }
}

/** Daily quotas in the metadata database, through identity/quota.ts (atomic check-and-count). */
export class SqliteQuotaStore implements QuotaStore {
  constructor(private readonly db: Database.Database) {}

  consume(identity: string, kind: QuotaKind, limit: number, now?: number): QuotaResult {
    return consume(this.db, { identity, kind, limit, now });
  }

  peek(identity: string, kind: QuotaKind, limit: number, now?: number): QuotaResult {
    return peek(this.db, { identity, kind, limit, now });
  }

  refund(identity: string, draw: QuotaDraw): boolean {
    return refund(this.db, { identity, kind: draw.kind, day: draw.day });
  }
}

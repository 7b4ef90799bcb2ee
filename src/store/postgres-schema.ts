import type { ArtifactChecks } from '../fidelity/describe.js';
import type { QuotaKind } from '../identity/quota.js';
import type { Progress } from '../run/types.js';
import type { ArtifactRecord, RequestRecord } from './types.js';

/**
 * PostgreSQL schema changes in order; `fileconv_schema.version` records how many have run. Never
 * edit a shipped one. Times are epoch milliseconds (BIGINT), as in the SQLite schema, so both
 * drivers hand out the same records; `seq` columns keep insertion order where SQLite uses rowid.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE requests (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     kind TEXT NOT NULL,
     status TEXT NOT NULL,
     conversion TEXT,
     from_format TEXT,
     to_format TEXT,
     options JSONB,
     filename TEXT NOT NULL,
     input_key TEXT,
     owner_hash TEXT,
     identity TEXT NOT NULL,
     queue TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     progress JSONB NOT NULL,
     error_code TEXT,
     error_message TEXT,
     report JSONB,
     quota_kind TEXT,
     quota_day TEXT,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     finished_at BIGINT
   );
   CREATE INDEX requests_queue ON requests (queue, created_at, seq);
   CREATE INDEX requests_owner ON requests (owner_hash, created_at);
   CREATE INDEX requests_kind ON requests (kind, status, conversion);
   CREATE INDEX requests_input ON requests (input_key) WHERE input_key IS NOT NULL;
   CREATE TABLE artifacts (
     request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     format TEXT NOT NULL,
     mime TEXT NOT NULL,
     size BIGINT NOT NULL,
     sha256 TEXT NOT NULL,
     blob_key TEXT NOT NULL,
     filename TEXT NOT NULL,
     position INTEGER NOT NULL,
     expires_at BIGINT NOT NULL,
     expired BOOLEAN NOT NULL DEFAULT false,
     checks JSONB,
     PRIMARY KEY (request_id, name)
   );
   CREATE INDEX artifacts_expiry ON artifacts (expired, expires_at);
   CREATE TABLE events (
     seq BIGSERIAL PRIMARY KEY,
     request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
     at BIGINT NOT NULL,
     kind TEXT NOT NULL,
     message TEXT NOT NULL
   );
   CREATE INDEX events_request ON events (request_id, seq);
   CREATE TABLE webhooks (
     request_id TEXT PRIMARY KEY REFERENCES requests (id) ON DELETE CASCADE,
     url TEXT NOT NULL,
     events JSONB NOT NULL,
     base_url TEXT NOT NULL
   );
   CREATE TABLE health (id INTEGER PRIMARY KEY, checked_at BIGINT NOT NULL);
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     label TEXT,
     created_at BIGINT NOT NULL,
     last_used_at BIGINT,
     revoked_at BIGINT
   );
   CREATE TABLE quota_usage (
     identity TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('conversions', 'voice', 'file_checks')),
     day TEXT NOT NULL,
     used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
     PRIMARY KEY (identity, kind, day)
   );
   CREATE INDEX quota_usage_day ON quota_usage (day);
   CREATE TABLE write_admissions (key TEXT NOT NULL, at BIGINT NOT NULL);
   CREATE INDEX write_admissions_key ON write_admissions (key, at);
   CREATE INDEX write_admissions_at ON write_admissions (at);
   CREATE TABLE secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL, created_at BIGINT NOT NULL);`,
];

/** A request row as the pool returns it (BIGINT parsed to number, JSONB to values). */
export interface PgRequestRow {
  id: string;
  kind: string;
  status: string;
  conversion: string | null;
  from_format: string | null;
  to_format: string | null;
  options: Record<string, unknown> | null;
  filename: string;
  input_key: string | null;
  owner_hash: string | null;
  identity: string;
  queue: string;
  attempts: number;
  progress: Progress;
  error_code: string | null;
  error_message: string | null;
  report: Record<string, unknown> | null;
  quota_kind: string | null;
  quota_day: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface PgArtifactRow {
  request_id: string;
  name: string;
  format: string;
  mime: string;
  size: number;
  sha256: string;
  blob_key: string;
  filename: string;
  expires_at: number;
  expired: boolean;
  checks: ArtifactChecks | null;
}

export function pgToRequest(r: PgRequestRow): RequestRecord {
  return {
    id: r.id,
    kind: r.kind as RequestRecord['kind'],
    status: r.status as RequestRecord['status'],
    conversion: r.conversion ?? undefined,
    from: r.from_format ?? undefined,
    to: r.to_format ?? undefined,
    options: r.options ?? undefined,
    filename: r.filename,
    inputKey: r.input_key ?? undefined,
    ownerHash: r.owner_hash ?? undefined,
    identity: r.identity,
    queue: r.queue as RequestRecord['queue'],
    attempts: r.attempts,
    progress: r.progress,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : undefined,
    report: r.report ?? undefined,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at ?? undefined,
    quota: r.quota_kind && r.quota_day ? { kind: r.quota_kind as QuotaKind, day: r.quota_day } : undefined,
  };
}

export function pgToArtifact(r: PgArtifactRow): ArtifactRecord {
  return {
    requestId: r.request_id,
    name: r.name,
    format: r.format,
    mime: r.mime,
    size: r.size,
    sha256: r.sha256,
    blobKey: r.blob_key,
    filename: r.filename,
    expiresAt: r.expires_at,
    expired: r.expired,
    checks: r.checks ?? undefined,
  };
}

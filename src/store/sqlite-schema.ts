import type { ArtifactChecks } from '../fidelity/describe.js';
import { QUOTA_SCHEMA_SQL, type QuotaKind } from '../identity/quota.js';
import type { Progress } from '../run/types.js';
import type { ArtifactRecord, RequestInput, RequestRecord } from './types.js';

/** The blob keys a row's inputs hold: the one input, or every input of a merge. */
export function inputKeysOf(row: { input_key: string | null; inputs: string | null }): string[] {
  if (!row.input_key) return [];
  const inputs = row.inputs ? (JSON.parse(row.inputs) as RequestInput[]) : [];
  return [row.input_key, ...inputs.map((i) => i.key)];
}

/** Schema changes in order; `PRAGMA user_version` records how many have run. Never edit a shipped one. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE requests (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     status TEXT NOT NULL,
     conversion TEXT,
     from_format TEXT,
     to_format TEXT,
     options TEXT,
     filename TEXT NOT NULL,
     input_key TEXT,
     owner_hash TEXT,
     identity TEXT NOT NULL,
     queue TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     progress TEXT NOT NULL,
     error_code TEXT,
     error_message TEXT,
     report TEXT,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     finished_at INTEGER
   );
   CREATE INDEX requests_queue ON requests (queue, created_at);
   CREATE INDEX requests_owner ON requests (owner_hash, created_at);
   CREATE INDEX requests_kind ON requests (kind, created_at);
   CREATE TABLE artifacts (
     request_id TEXT NOT NULL REFERENCES requests (id),
     name TEXT NOT NULL,
     format TEXT NOT NULL,
     mime TEXT NOT NULL,
     size INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     blob_key TEXT NOT NULL,
     filename TEXT NOT NULL,
     position INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     expired INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (request_id, name)
   );
   CREATE INDEX artifacts_expiry ON artifacts (expired, expires_at);
   CREATE TABLE events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     request_id TEXT NOT NULL REFERENCES requests (id),
     at INTEGER NOT NULL,
     kind TEXT NOT NULL,
     message TEXT NOT NULL
   );
   CREATE INDEX events_request ON events (request_id, seq);
   CREATE TABLE health (id INTEGER PRIMARY KEY, checked_at INTEGER NOT NULL);`,
  // API keys: only the SHA-256 hex of a key is kept; the prefix is for telling keys apart in listings.
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     label TEXT,
     created_at INTEGER NOT NULL,
     last_used_at INTEGER,
     revoked_at INTEGER
   );`,
  QUOTA_SCHEMA_SQL,
  // Which daily quota a conversion drew on and on which UTC day, so a failure refunds that unit.
  `ALTER TABLE requests ADD COLUMN quota_kind TEXT;
   ALTER TABLE requests ADD COLUMN quota_day TEXT;`,
  // Webhooks of convert requests: read when the request ends, so they survive a restart.
  `CREATE TABLE webhooks (
     request_id TEXT PRIMARY KEY REFERENCES requests(id) ON DELETE CASCADE,
     url TEXT NOT NULL,
     events TEXT NOT NULL,
     base_url TEXT NOT NULL
   );`,
  // What each artifact kept (pages, pictures, words...), as JSON.
  `ALTER TABLE artifacts ADD COLUMN checks TEXT;`,
  // The per-minute write limit's sliding-window log, shared by every process on the database.
  `CREATE TABLE write_admissions (key TEXT NOT NULL, at INTEGER NOT NULL);
   CREATE INDEX write_admissions_key ON write_admissions (key, at);
   CREATE INDEX write_admissions_at ON write_admissions (at);`,
  // Secrets every process shares (link signing, webhook signing).
  `CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL, created_at INTEGER NOT NULL);`,
  // The inputs of a request with several (a merge), as JSON: keys, names, formats and sizes in order.
  `ALTER TABLE requests ADD COLUMN inputs TEXT;`,
  // The claim of a conversion on the shared queue: the SHA-256 of its worker's token and the time
  // of its last heartbeat (both NULL when claimed by the embedded queue).
  `ALTER TABLE requests ADD COLUMN claim_token TEXT;
   ALTER TABLE requests ADD COLUMN heartbeat_at INTEGER;`,
  // The queue lane of a conversion (the engine of its main work): claims pass over full lanes.
  `ALTER TABLE requests ADD COLUMN lane TEXT;`,
];

export interface RequestRow {
  id: string;
  kind: string;
  status: string;
  conversion: string | null;
  from_format: string | null;
  to_format: string | null;
  options: string | null;
  filename: string;
  input_key: string | null;
  owner_hash: string | null;
  identity: string;
  queue: string;
  attempts: number;
  progress: string;
  error_code: string | null;
  error_message: string | null;
  report: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  quota_kind: string | null;
  quota_day: string | null;
  inputs: string | null;
  lane: string | null;
}

export interface ArtifactRow {
  request_id: string;
  name: string;
  format: string;
  mime: string;
  size: number;
  sha256: string;
  blob_key: string;
  filename: string;
  expires_at: number;
  expired: number;
  checks: string | null;
}

export function toRequest(r: RequestRow): RequestRecord {
  return {
    id: r.id,
    kind: r.kind as RequestRecord['kind'],
    status: r.status as RequestRecord['status'],
    conversion: r.conversion ?? undefined,
    from: r.from_format ?? undefined,
    to: r.to_format ?? undefined,
    options: r.options ? JSON.parse(r.options) : undefined,
    filename: r.filename,
    inputKey: r.input_key ?? undefined,
    inputs: r.inputs ? (JSON.parse(r.inputs) as RequestInput[]) : undefined,
    ownerHash: r.owner_hash ?? undefined,
    identity: r.identity,
    queue: r.queue as RequestRecord['queue'],
    attempts: r.attempts,
    progress: JSON.parse(r.progress) as Progress,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : undefined,
    report: r.report ? JSON.parse(r.report) : undefined,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at ?? undefined,
    quota: r.quota_kind && r.quota_day ? { kind: r.quota_kind as QuotaKind, day: r.quota_day } : undefined,
    lane: r.lane ?? undefined,
  };
}

export function toArtifact(r: ArtifactRow): ArtifactRecord {
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
    expired: r.expired === 1,
    checks: r.checks ? (JSON.parse(r.checks) as ArtifactChecks) : undefined,
  };
}

/**
 * An artifact's values in the column order of both drivers' INSERT (request_id, name, format,
 * mime, size, sha256, blob_key, filename, position, expires_at, checks).
 */
export function artifactValues(a: ArtifactRecord, position: number): unknown[] {
  return [
    a.requestId,
    a.name,
    a.format,
    a.mime,
    a.size,
    a.sha256,
    a.blobKey,
    a.filename,
    position,
    a.expiresAt,
    a.checks ? JSON.stringify(a.checks) : null,
  ];
}

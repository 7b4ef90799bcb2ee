import type { Generated, Insertable, Selectable } from 'kysely';
import type { ArtifactChecks } from '../../engine/checks.js';
import type { QuotaKind } from '../../identity/quota.js';
import type { Progress } from '../../run/types.js';
import type { ApiKeyRecord, ArtifactRecord, NewRequest, RequestInput, RequestRecord } from '../types.js';

/**
 * The tables of the records database as the query builder sees them, and the mapping between
 * rows and records. Both databases hold the same shape: epoch milliseconds and sizes as BIGINT
 * (read as numbers: every value is far below 2^53), JSON as text (so it reads back with its keys
 * in the order it was written, which JSONB would not keep), `expired` as 0/1.
 */
export interface RequestsTable {
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
  attempts: Generated<number>;
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
  claim_token: string | null;
  heartbeat_at: number | null;
  lane: string | null;
}

export interface ArtifactsTable {
  request_id: string;
  name: string;
  format: string;
  mime: string;
  size: number;
  sha256: string;
  blob_key: string;
  filename: string;
  position: number;
  expires_at: number;
  expired: Generated<number>;
  checks: string | null;
}

export interface EventsTable {
  seq: Generated<number>;
  request_id: string;
  at: number;
  kind: string;
  message: string;
}

/** Saved recipes: the checked recipe as JSON, per owner token (its SHA-256) and name. */
export interface RecipesTable {
  owner_hash: string;
  name: string;
  recipe: string;
  created_at: number;
  updated_at: number;
}

export interface Schema {
  requests: RequestsTable;
  artifacts: ArtifactsTable;
  events: EventsTable;
  webhooks: { request_id: string; url: string; events: string; base_url: string };
  health: { id: number; checked_at: number };
  api_keys: {
    id: string;
    hash: string;
    prefix: string;
    label: string | null;
    created_at: number;
    last_used_at: number | null;
    revoked_at: number | null;
  };
  quota_usage: { identity: string; kind: string; day: string; used: Generated<number> };
  write_admissions: { key: string; at: number };
  secrets: { name: string; value: Buffer; created_at: number };
  recipes: RecipesTable;
}

export type RequestRow = Selectable<RequestsTable>;
export type ArtifactRow = Selectable<ArtifactsTable>;
export type KeyRow = Omit<Selectable<Schema['api_keys']>, 'hash'>;

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/** The blob keys a row's inputs hold: the one input, or every input of a merge. */
export function inputKeysOf(row: { input_key: string | null; inputs: string | null }): string[] {
  if (!row.input_key) return [];
  const inputs = row.inputs ? (JSON.parse(row.inputs) as RequestInput[]) : [];
  return [row.input_key, ...inputs.map((i) => i.key)];
}

export function requestRow(r: NewRequest): Insertable<RequestsTable> {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    conversion: r.conversion ?? null,
    from_format: r.from ?? null,
    to_format: r.to ?? null,
    options: json(r.options),
    filename: r.filename,
    input_key: r.inputKey ?? null,
    owner_hash: r.ownerHash ?? null,
    identity: r.identity,
    queue: r.queue,
    progress: JSON.stringify(r.progress),
    report: json(r.report),
    quota_kind: r.quota?.kind ?? null,
    quota_day: r.quota?.day ?? null,
    created_at: r.createdAt,
    updated_at: r.createdAt,
    finished_at: r.status === 'running' ? null : r.createdAt,
    inputs: json(r.inputs),
    lane: r.lane ?? null,
  };
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

/** An artifact's row; `position` keeps the order the conversion gave. */
export function artifactRow(a: ArtifactRecord, position: number): Insertable<ArtifactsTable> {
  return {
    request_id: a.requestId,
    name: a.name,
    format: a.format,
    mime: a.mime,
    size: a.size,
    sha256: a.sha256,
    blob_key: a.blobKey,
    filename: a.filename,
    position,
    expires_at: a.expiresAt,
    checks: json(a.checks),
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

export function toKey(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    label: r.label ?? undefined,
    prefix: r.prefix,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at ?? undefined,
    revokedAt: r.revoked_at ?? undefined,
  };
}

import type { Readable, Writable } from 'node:stream';
import type { ArtifactChecks } from '../fidelity/describe.js';
import type { FormatId } from '../formats/index.js';
import type { QuotaKind, QuotaResult } from '../identity/quota.js';
import type { Progress } from '../run/types.js';

export type RequestKind = 'detect' | 'convert';
export type RequestStatus = 'running' | 'succeeded' | 'failed';
/** Where a running conversion is: waiting for a slot, or being worked on by this process. */
export type QueueState = 'queued' | 'working' | 'done';

export interface StoredError {
  code: string;
  message: string;
}

export interface RequestRecord {
  id: string;
  kind: RequestKind;
  status: RequestStatus;
  /** Conversion key (`csv-json`), undefined for detects. */
  conversion: string | undefined;
  from: FormatId | undefined;
  to: FormatId | undefined;
  /** Validated-later raw options object of the convert meta. */
  options: Record<string, unknown> | undefined;
  /** The uploaded file's sanitised name. */
  filename: string;
  /** Blob key of the input while it is kept (deleted once the conversion ends). */
  inputKey: string | undefined;
  ownerHash: string | undefined;
  identity: string;
  queue: QueueState;
  attempts: number;
  progress: Progress;
  error: StoredError | undefined;
  /** Detect report, for detects. */
  report: Record<string, unknown> | undefined;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | undefined;
  /** The daily quota unit this request drew (refunded if the conversion fails). */
  quota: QuotaDraw | undefined;
}

export interface QuotaDraw {
  kind: QuotaKind;
  /** UTC day (YYYY-MM-DD) the unit was taken from. */
  day: string;
}

export interface ArtifactRecord {
  requestId: string;
  name: string;
  format: FormatId;
  mime: string;
  size: number;
  sha256: string;
  blobKey: string;
  /** File name offered on download. */
  filename: string;
  expiresAt: number;
  expired: boolean;
  /** What the artifact kept (pages, pictures, words...), measured when it was made. */
  checks?: ArtifactChecks;
}

export interface TimelineEvent {
  at: number;
  kind: string;
  message: string;
}

export interface NewRequest {
  id: string;
  kind: RequestKind;
  status: RequestStatus;
  conversion?: string;
  from?: FormatId;
  to?: FormatId;
  options?: Record<string, unknown>;
  filename: string;
  inputKey?: string;
  ownerHash?: string;
  identity: string;
  queue: QueueState;
  progress: Progress;
  report?: Record<string, unknown>;
  quota?: QuotaDraw;
  createdAt: number;
}

export interface Counts {
  total: number;
  succeeded: number;
  failed: number;
}

export interface ConversionCounts {
  key: string;
  lastDay: Counts;
  allTime: Counts;
}

/** Request metadata: the routes and the queue go through this, never through SQL. */
export interface RequestStore {
  createRequest(request: NewRequest, events: readonly TimelineEvent[]): void;
  getRequest(id: string): RequestRecord | undefined;
  /** Newest first. */
  recentByOwner(ownerHash: string, limit: number): RequestRecord[];
  /** Number of conversions waiting for a slot. */
  countQueued(): number;
  /** Atomically moves the oldest queued conversion to `working`; undefined when none waits. */
  claimNextQueued(now: number): RequestRecord | undefined;
  /** Puts conversions left `working` (by a process that stopped) back in the queue, or fails them. */
  requeueInterrupted(
    now: number,
    maxAttempts: number,
  ): { requeued: RequestRecord[]; failed: RequestRecord[] };
  /** Puts one `working` conversion back in the queue (shutdown before it could finish). */
  requeue(id: string, now: number): void;
  updateProgress(id: string, progress: Progress, now: number): void;
  finishSucceeded(id: string, artifacts: readonly ArtifactRecord[], now: number): void;
  finishFailed(id: string, error: StoredError, now: number): void;
  clearInputKey(id: string): void;
  addEvent(id: string, event: TimelineEvent): void;
  timeline(id: string): TimelineEvent[];
  artifacts(requestId: string): ArtifactRecord[];
  artifact(requestId: string, name: string): ArtifactRecord | undefined;
  /** Artifacts past their expiry and not yet marked expired. */
  dueArtifacts(now: number): ArtifactRecord[];
  markExpired(requestId: string, name: string): boolean;
  /** Every blob key the metadata still points at (inputs of unfinished work, live artifacts). */
  liveBlobKeys(): Set<string>;
  conversionCounts(since: number): ConversionCounts[];
  /** Throws if the database cannot be written. */
  checkWritable(): void;
  close(): void;
}

export interface ApiKeyRecord {
  id: string;
  label: string | undefined;
  /** `fck_` and the first characters of the secret: enough to recognise a key, too little to use it. */
  prefix: string;
  createdAt: number;
  lastUsedAt: number | undefined;
  revokedAt: number | undefined;
}

/** API keys by their SHA-256 hash; the plaintext never reaches the store. */
export interface KeyStore {
  createKey(key: { id: string; hash: string; prefix: string; label?: string; createdAt: number }): void;
  /** Oldest first. */
  listKeys(): ApiKeyRecord[];
  /** The key with this hash, revoked or not; read from the database every time (no cache). */
  findByHash(hash: string): ApiKeyRecord | undefined;
  /** Marks a key revoked; false when there is no key with that id. Revoking twice keeps the first time. */
  revokeKey(id: string, now: number): boolean;
  touchKey(id: string, now: number): void;
}

/** Daily quota counters per metered identity (see identity/quota.ts). */
export interface QuotaStore {
  /** Checks and counts one unit atomically. */
  consume(identity: string, kind: QuotaKind, limit: number, now?: number): QuotaResult;
  peek(identity: string, kind: QuotaKind, limit: number, now?: number): QuotaResult;
  refund(identity: string, draw: QuotaDraw): boolean;
}

export interface BlobStat {
  size: number;
}

export interface BlobWriter {
  stream: Writable;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** Blob storage for inputs and artifacts, addressed by keys like `inputs/<id>`. */
export interface BlobStore {
  /** A writable for a new blob; `commit` makes it visible, `abort` removes what was written. */
  createWriter(key: string): Promise<BlobWriter>;
  /** Moves a local file into the store under `key`. */
  importFile(key: string, path: string): Promise<void>;
  /** A local path of the blob for engines to read (the blob itself on disk). */
  localPath(key: string): Promise<string>;
  stat(key: string): Promise<BlobStat | undefined>;
  /** Reads the blob, or the inclusive byte range [start, end]. */
  openRead(key: string, range?: { start: number; end: number }): Readable;
  delete(key: string): Promise<void>;
  /** Every stored key. */
  list(): Promise<string[]>;
  /** A scratch folder for one conversion, removed by the caller. */
  scratchDir(name: string): Promise<string>;
  /** Removes scratch folders left by a process that stopped. */
  clearScratch(): Promise<void>;
}

import type { Readable, Writable } from 'node:stream';
import type { ArtifactChecks } from '../engine/checks.js';
import type { FormatId } from '../formats/index.js';
import type { QuotaKind, QuotaResult } from '../identity/quota.js';
import type { RateLimitResult } from '../identity/ratelimit.js';
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
  /** Blob key of the input while it is kept (deleted once the conversion ends); a merge's first input. */
  inputKey: string | undefined;
  /** A request with several inputs (a merge): all of them in order, the first being `inputKey`. */
  inputs: RequestInput[] | undefined;
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
  /**
   * The queue lane it waits in: the engine doing its main work (`ffmpeg`, `libreoffice`, `data`...),
   * or `merge`. Each lane has its own slots, so a short conversion of one engine does not wait
   * behind long ones of another. Undefined for detects and records from before lanes.
   */
  lane: string | undefined;
}

/** One of several inputs of a request (a merge), in the order they were sent. */
export interface RequestInput {
  /** Blob key while the input is kept. */
  key: string;
  /** The sanitised name it was sent under. */
  filename: string;
  /** Its format as the request was planned with it. */
  format: FormatId;
  size: number;
}

export interface QuotaDraw {
  kind: QuotaKind;
  /** UTC day (YYYY-MM-DD) the unit was taken from. */
  day: string;
  /** Units taken or to give back (default 1): a merge takes one per input. */
  units?: number;
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

/** Events given as one or several, as a list. */
export function eventList(
  events: TimelineEvent | readonly TimelineEvent[] | undefined,
): readonly TimelineEvent[] {
  if (!events) return [];
  return 'kind' in events ? [events] : events;
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
  /** Several inputs (a merge), in order; `inputKey` is the first's key. */
  inputs?: readonly RequestInput[];
  ownerHash?: string;
  identity: string;
  queue: QueueState;
  progress: Progress;
  report?: Record<string, unknown>;
  quota?: QuotaDraw;
  /** See RequestRecord.lane. */
  lane?: string;
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

/** A convert request's webhook as filed: `baseUrl` builds the download links of the body it sends. */
export interface StoredWebhook {
  requestId: string;
  url: string;
  events: string[];
  baseUrl: string;
}

/** A worker's claim of a request, for the shared queue (see RequestStore.claim). */
export interface ClaimTicket {
  /** Random, known only to the claiming worker; the records keep only its SHA-256. */
  token: string;
  /** A request held by another claim whose last heartbeat is older than this may be taken. */
  staleBefore: number;
}

/** Request metadata: the routes, the queue and the workers go through this, never through SQL. */
export interface RequestStore {
  createRequest(request: NewRequest, events: readonly TimelineEvent[]): Promise<void>;
  getRequest(id: string): Promise<RequestRecord | undefined>;
  /** Newest first. */
  recentByOwner(ownerHash: string, limit: number): Promise<RequestRecord[]>;
  /** Number of conversions waiting for a slot. */
  countQueued(): Promise<number>;
  /**
   * Embedded queue only: atomically moves the oldest queued conversion to `working`, attempts + 1,
   * passing over those of `fullLanes` (lanes whose slots are all taken; a request without a lane is
   * in lane ''), so a later conversion of a free lane goes ahead of them.
   */
  claimNextQueued(now: number, fullLanes?: readonly string[]): Promise<RequestRecord | undefined>;
  /**
   * A worker took this request's job: queued (or working, after a dead worker) -> working, attempts + 1.
   * undefined when the request is no longer running (a duplicate delivery: the worker drops it).
   * With a ticket, the claim is the ticket's (its heartbeats must carry the token) and a request
   * `working` under another claim is taken only if that claim's heartbeat is older than
   * `ticket.staleBefore`: of two workers claiming at once, exactly one gets it.
   */
  claim(id: string, now: number, ticket?: ClaimTicket): Promise<RequestRecord | undefined>;
  /**
   * The claim holding `token` is alive: its heartbeat moves to `now`. False when `token` does not
   * hold the request's claim (never did, or the request was handed on or ended): the worker stops.
   */
  heartbeat(id: string, token: string, now: number): Promise<boolean>;
  /**
   * Puts back in the queue every `working` conversion whose claim's last heartbeat is older than
   * `staleBefore` (its worker is presumed dead) and returns them, each to one caller only.
   * Conversions claimed without a ticket (the embedded queue) have no heartbeat and stay.
   */
  releaseStale(now: number, staleBefore: number): Promise<RequestRecord[]>;
  /** Puts conversions left `working` (by a process that stopped) back in the queue, or fails them. */
  requeueInterrupted(
    now: number,
    maxAttempts: number,
  ): Promise<{ requeued: RequestRecord[]; failed: RequestRecord[] }>;
  /**
   * Puts one `working` conversion back in the queue (shutdown before it could finish). With a
   * token, only while that claim holds it. False when nothing changed.
   */
  requeue(id: string, now: number, token?: string): Promise<boolean>;
  updateProgress(id: string, progress: Progress, now: number): Promise<void>;
  /**
   * Only a running request finishes; false when it had already finished (so nothing is stored twice).
   * `events` (one, or several in order: a run's whole trail, its end last) join the timeline in the
   * same step, and only when this call finished the request.
   */
  finishSucceeded(
    id: string,
    artifacts: readonly ArtifactRecord[],
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean>;
  finishFailed(
    id: string,
    error: StoredError,
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean>;
  clearInputKey(id: string): Promise<void>;
  /**
   * Ended requests that still hold their input (its run stopped between the end and deleting it):
   * the retention sweep deletes those inputs.
   */
  endedWithInput(): Promise<RequestRecord[]>;
  addEvent(id: string, event: TimelineEvent): Promise<void>;
  timeline(id: string): Promise<TimelineEvent[]>;
  artifacts(requestId: string): Promise<ArtifactRecord[]>;
  artifact(requestId: string, name: string): Promise<ArtifactRecord | undefined>;
  /** Artifacts past their expiry and not yet marked expired. */
  dueArtifacts(now: number): Promise<ArtifactRecord[]>;
  markExpired(requestId: string, name: string): Promise<boolean>;
  /** Every blob key the metadata still points at (inputs of unfinished work, every input of a merge, live artifacts). */
  liveBlobKeys(): Promise<Set<string>>;
  conversionCounts(since: number): Promise<ConversionCounts[]>;
  saveWebhook(webhook: StoredWebhook): Promise<void>;
  webhook(requestId: string): Promise<StoredWebhook | undefined>;
  /** Throws if the database cannot be written. */
  checkWritable(): Promise<void>;
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
  createKey(key: {
    id: string;
    hash: string;
    prefix: string;
    label?: string;
    createdAt: number;
  }): Promise<void>;
  /** Oldest first. */
  listKeys(): Promise<ApiKeyRecord[]>;
  /** The key with this hash, revoked or not; read from the database every time (no cache). */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** Marks a key revoked; false when there is no key with that id. Revoking twice keeps the first time. */
  revokeKey(id: string, now: number): Promise<boolean>;
  touchKey(id: string, now: number): Promise<void>;
}

/** Daily quota counters per metered identity (see identity/quota.ts). */
export interface QuotaStore {
  /**
   * Checks and counts `units` (default 1) atomically, exact across processes and nodes: all of them
   * or none, never past the limit.
   */
  consume(
    identity: string,
    kind: QuotaKind,
    limit: number,
    now?: number,
    units?: number,
  ): Promise<QuotaResult>;
  peek(identity: string, kind: QuotaKind, limit: number, now?: number): Promise<QuotaResult>;
  /** Gives back the draw's units (never below zero); false when nothing was counted that day. */
  refund(identity: string, draw: QuotaDraw): Promise<boolean>;
  /** Counts the draw's units for work already done, past the limit if need be (no refusal). */
  charge(identity: string, draw: QuotaDraw): Promise<void>;
}

/**
 * The per-minute write limit as a sliding-window log (see identity/ratelimit.ts), exact across
 * nodes: the check and the count happen in one atomic step in the database.
 */
export interface WriteLimitStore {
  admit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult>;
}

/** Secrets every node must share (link signing, webhook signing): made once on first start, read after. */
export interface SecretStore {
  /**
   * The secret called `name`. The first call anywhere stores `initial` (an existing key being
   * adopted) or else 32 random bytes; every later call, on any node, returns that same value.
   */
  secret(name: string, initial?: Buffer): Promise<Buffer>;
}

/** A saved recipe of one owner token (src/core/recipes.ts): the checked recipe as JSON. */
export interface RecipeRecord {
  ownerHash: string;
  name: string;
  /** The recipe as `checkRecipe` returned it. */
  recipe: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** Recipes per owner token, by name. */
export interface RecipeStore {
  /**
   * Saves a recipe under its owner and name, replacing one of that name (keeping when it was first
   * made). Refuses a new name past `limit` recipes of that owner (INVALID_REQUEST).
   */
  saveRecipe(
    recipe: Omit<RecipeRecord, 'createdAt' | 'updatedAt'>,
    now: number,
    limit: number,
  ): Promise<{ record: RecipeRecord; replaced: boolean }>;
  getRecipe(ownerHash: string, name: string): Promise<RecipeRecord | undefined>;
  /** By name. */
  listRecipes(ownerHash: string): Promise<RecipeRecord[]>;
  /** False when there was none of that name. */
  deleteRecipe(ownerHash: string, name: string): Promise<boolean>;
}

/** All record stores of one database, opened together. */
export interface Records {
  requests: RequestStore;
  keys: KeyStore;
  quotas: QuotaStore;
  writeLimits: WriteLimitStore;
  secrets: SecretStore;
  recipes: RecipeStore;
  close(): Promise<void>;
}

export interface BlobStat {
  size: number;
}

export interface BlobWriter {
  stream: Writable;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Blob storage for inputs and artifacts, addressed by keys like `inputs/<id>`. It has no local
 * paths of its own: engines get one through withLocalCopy, and scratch space is each node's
 * (run/scratch.ts).
 */
export interface BlobStore {
  /** Streams a new blob in; `commit` makes it visible, `abort` removes what was written. Never buffers the whole file. */
  createWriter(key: string): Promise<BlobWriter>;
  /**
   * Stores a local file under `key`. The file stays the caller's to delete, not to rewrite: the
   * disk store keeps a second name of the same bytes where it can.
   */
  putFile(key: string, path: string): Promise<void>;
  /**
   * Lends a local path of the blob while `fn` runs (disk: the blob itself; remote stores: a
   * download into `scratchDir`, an existing folder, removed after `fn`). The path is read-only for `fn`.
   */
  withLocalCopy<T>(key: string, scratchDir: string, fn: (path: string) => Promise<T>): Promise<T>;
  /**
   * The blob's own file, for stores that keep blobs on this machine's disk: a reader that needs no
   * scratch folder otherwise (detection) reads it in place, read-only, without making one.
   */
  localPath?(key: string): string;
  stat(key: string): Promise<BlobStat | undefined>;
  /** Reads the blob, or the inclusive byte range [start, end], streamed. */
  openRead(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /**
   * A URL that downloads the blob directly for `expiresInSeconds` (with Content-Disposition and
   * Content-Type); absent when the store has none (disk).
   */
  presignedUrl?(
    key: string,
    opts: { filename: string; mime: string; expiresInSeconds: number },
  ): Promise<string>;
  delete(key: string): Promise<void>;
  /** Every stored key. */
  list(): Promise<string[]>;
  close?(): Promise<void>;
}

/** The seam between the API and the workers. */
/** The abort reason of a worker that stops: its running conversions go back to the queue. */
export class StopRequested extends Error {}

/** A conversion interrupted more often than this (its worker died each time) is failed, not retried. */
export const MAX_ATTEMPTS = 3;

export interface JobQueue {
  /**
   * Enqueues one conversion; the same request id enqueued twice is one job. `handover` (the
   * request's attempts when its claim was released) files a job of its own for a conversion handed
   * on from a dead worker, whose first job the queue still holds; the same handover twice is one job.
   */
  enqueue(requestId: string, handover?: number, lane?: string): Promise<void>;
  /**
   * Runs `handler` for jobs, at most `concurrency` at once per lane (`lanes`, beside the lane of
   * jobs filed without one), until stop(). A handler that throws is retried (up to the queue's
   * retry limit); a job whose lease expired is delivered again (the request's claim decides whether
   * that delivery runs it: see RequestStore.claim). Each lane (RequestRecord.lane) waits for its own
   * slots, so a long job of one engine does not hold back jobs of another.
   */
  work(
    handler: (requestId: string, signal: AbortSignal) => Promise<void>,
    opts: { concurrency: number; lanes?: readonly string[] },
  ): Promise<void>;
  /** Jobs waiting to run. */
  depth(): Promise<number>;
  /**
   * Tells the other nodes that `requestId`'s status changed, so their long polls of it answer now
   * rather than at their next look at the store. Best effort: polling stays the guarantee.
   */
  announceChange(requestId: string): Promise<void>;
  /** Calls `listener` with each request another node announced as changed. */
  onChange(listener: (requestId: string) => void): Promise<void>;
  /** Stops taking jobs; running handlers are aborted after `graceMs` and their jobs left for another worker. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

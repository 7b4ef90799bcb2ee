import type { Logger } from 'pino';
import type { OptionSecrets } from '../core/option-secrets.js';
import { anonymousIdentity } from '../identity/client-ip.js';
import type { LimitState } from '../identity/headers.js';
import type { QuotaKind } from '../identity/quota.js';
import type { ScratchSpace } from '../run/scratch.js';
import type { BlobStore, QuotaDraw, RecipeStore, RequestStore } from '../store/types.js';
import type { LinkSigner } from './access/tokens.js';
import type { ServeConfig } from './config.js';
import type { WebhookDispatcher } from './delivery/webhooks.js';
import type { Identity, IdentityResolver } from './http/app-env.js';
import type { FinishedAnswers } from './http/finished-answers.js';
import type { ServerEngine } from './jobs/engine.js';
import type { RequestChanges } from './jobs/request-changes.js';
import type { ServerMetrics } from './observability/metrics.js';

export type { AppEnv, Identity, IdentityResolver } from './http/app-env.js';

export type WriteOperation = 'detect' | 'convert';

/** A decision of one limit, with the header state to report either way. */
export interface LimitDecision {
  allowed: boolean;
  state: LimitState;
}

/**
 * Where per-minute write limits and daily quotas plug in. The routes turn refusals into
 * RATE_LIMITED / QUOTA_EXCEEDED answers and every decision into RateLimit headers.
 */
export interface WriteLimits {
  /** Counts one write of the caller's IP; undefined when the per-minute limit is off. */
  admitWrite(identity: Identity): Promise<(LimitDecision & { retryAfterSeconds: number }) | undefined>;
  /** Takes `units` (default 1) of today's quota, all or none (check and count in one step). */
  draw(identity: Identity, kind: QuotaKind, units?: number): Promise<LimitDecision & { draw: QuotaDraw }>;
  /** Today's standing of one quota, taking nothing. */
  standing(identity: Identity, kind: QuotaKind): Promise<LimitState>;
  /** Gives back units a request drew; `meteredAs` is the request's stored identity. */
  refund(meteredAs: string, draw: QuotaDraw): Promise<boolean>;
  /** Counts units of engine work a request did past what it drew (docs/security.md, "Quota units"). */
  charge(meteredAs: string, draw: QuotaDraw): Promise<void>;
}

/** The string quotas are counted under (and requests are filed under): per key, or per client IP. */
export function meteredAs(identity: Identity): string {
  return identity.kind === 'key' ? `key:${identity.keyId}` : anonymousIdentity(identity.ip);
}

/** Fetches a source_url into a folder (SSRF checks are the implementation's job). */
export interface UrlIntake {
  fetch(
    url: string,
    destDir: string,
    opts: { signal: AbortSignal },
  ): Promise<{ path: string; filename: string; contentType: string }>;
}

/** Where filed conversions go: the embedded queue (SQLite) or a JobQueue's jobs (PostgreSQL). */
export interface WorkQueue {
  /** Fired when this process changes a request's status; long-polling readers wait on it. */
  readonly changes: RequestChanges;
  /** Conversions waiting to run. */
  depth(): Promise<number>;
  /** Conversions running in this process. */
  readonly active: number;
  /** A conversion was filed. */
  submit(requestId: string, lane?: string): Promise<void>;
}

export interface ServerContext {
  config: ServeConfig;
  store: RequestStore;
  /** Saved recipes, per owner token. */
  recipes: RecipeStore;
  blobs: BlobStore;
  /** This node's scratch folders (URL fetches, conversion outputs, local copies of blobs). */
  scratch: ScratchSpace;
  engine: ServerEngine;
  queue: WorkQueue;
  signer: LinkSigner;
  identity: IdentityResolver;
  limits: WriteLimits;
  urlIntake: UrlIntake | undefined;
  metrics: ServerMetrics;
  webhooks: WebhookDispatcher;
  /** Seals the passwords of a request's options before they are recorded. */
  optionSecrets: OptionSecrets;
  /** Rendered answers of finished requests, kept for their polls (finished-answers.ts). */
  finishedAnswers: FinishedAnswers;
  /** Set on SIGTERM: writes answer 503 while running work finishes. */
  state: { draining: boolean };
  /** Structured log lines (HTTP answers, conversions). */
  logger: Logger;
  /** Free-text problems (internal errors, failed refunds); a logger call unless a test captures them. */
  log(message: string): void;
}

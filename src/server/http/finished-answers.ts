import type { ArtifactRecord, RequestRecord } from '../../store/types.js';

/**
 * How long a kept answer is trusted at most. A finished request changes at a known time (its next
 * artifact expiry), except when it is deleted: the node that deletes forgets the answer at once,
 * other nodes sharing the database see the deletion when this bound runs out.
 */
export const MAX_KEEP_MS = 30_000;
/** Answers kept at most; the oldest goes first. A few MB of JSON at worst. */
export const MAX_KEPT = 5_000;

interface Kept {
  base: string;
  body: Uint8Array<ArrayBuffer>;
  until: number;
}

/**
 * Rendered `GET /api/public/requests/{id}` answers of finished requests, so a poll of a request that
 * has ended skips the store and the JSON. Running requests are never kept (their progress moves).
 * A kept answer is dropped at its request's earliest artifact expiry, after MAX_KEEP_MS, or when
 * `forget` is called (deletion), whichever comes first; answers are rendered per base URL, since
 * their download links carry it.
 */
export class FinishedAnswers {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly maxKept = MAX_KEPT,
    private readonly maxKeepMs = MAX_KEEP_MS,
  ) {}

  /** The kept answer of `id` rendered for `base`, while it is still true. */
  get(id: string, base: string, now = Date.now()): Uint8Array<ArrayBuffer> | undefined {
    const entry = this.kept.get(id);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.kept.delete(id);
      return undefined;
    }
    return entry.base === base ? entry.body : undefined;
  }

  /**
   * Keeps `body`, the answer rendered from `request` and its `artifacts` for `base`, until it could
   * next change; a running request, or one whose next change is already due, is not kept.
   */
  keep(
    request: RequestRecord,
    artifacts: readonly ArtifactRecord[],
    base: string,
    body: Uint8Array<ArrayBuffer>,
    now = Date.now(),
  ): void {
    if (request.status === 'running') return;
    let until = now + this.maxKeepMs;
    for (const a of artifacts) if (!a.expired && a.expiresAt < until) until = a.expiresAt;
    if (until <= now) return;
    this.kept.delete(request.id);
    this.kept.set(request.id, { base, body, until });
    if (this.kept.size > this.maxKept) this.kept.delete(this.kept.keys().next().value as string);
  }

  /** Drops the answer of `id` (the request was deleted or changed by this node). */
  forget(id: string): void {
    this.kept.delete(id);
  }

  get size(): number {
    return this.kept.size;
  }
}

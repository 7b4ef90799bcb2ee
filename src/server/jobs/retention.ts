import { dropInput } from '../../core/request-outcome.js';
import type { BlobStore, RequestStore } from '../../store/types.js';

/**
 * Deletes artifacts past their retention and marks them expired. Idempotent: two sweeps at once, or
 * one after a crash halfway, delete nothing twice and leave no artifact half-expired.
 */
export async function sweepExpired(store: RequestStore, blobs: BlobStore, now = Date.now()): Promise<number> {
  const due = await store.dueArtifacts(now);
  const requests = new Set<string>();
  for (const a of due) {
    await blobs.delete(a.blobKey);
    if (await store.markExpired(a.requestId, a.name)) requests.add(a.requestId);
  }
  for (const id of requests) {
    await store.addEvent(id, {
      at: now,
      kind: 'expired',
      message: 'The retention period ended; the results were deleted.',
    });
  }
  return due.length;
}

/**
 * Deletes the inputs ended requests still hold: a worker deletes a request's input right after
 * storing its end, and one that stopped in between leaves it here. Returns how many requests.
 */
export async function sweepLeftInputs(store: RequestStore, blobs: BlobStore): Promise<number> {
  const left = await store.endedWithInput();
  for (const r of left) await dropInput({ store, blobs }, r);
  return left.length;
}

/** Deletes blob files nothing points at (left by a crash during an upload or a conversion). Start-up only. */
export async function sweepOrphans(store: RequestStore, blobs: BlobStore): Promise<number> {
  const live = await store.liveBlobKeys();
  let removed = 0;
  for (const key of await blobs.list()) {
    if (live.has(key)) continue;
    await blobs.delete(key);
    removed++;
  }
  return removed;
}

/** Runs the sweeper every `intervalMs` without keeping the process alive; returns a stop function. */
export function startSweeper(
  store: RequestStore,
  blobs: BlobStore,
  intervalMs: number,
  log: (m: string) => void,
): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    Promise.all([sweepExpired(store, blobs), sweepLeftInputs(store, blobs)])
      .catch((e) => log(`retention sweep failed: ${(e as Error).message}`))
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

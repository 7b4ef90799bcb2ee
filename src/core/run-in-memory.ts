import { readFile } from 'node:fs/promises';
import { isFileconvError } from '../errors/index.js';
import type { BlobStore, RequestRecord, TimelineEvent } from '../store/types.js';
import {
  dropInput,
  failRequest,
  REQUEUED_MESSAGE,
  type RunOutcome,
  type RunRequestDeps,
  requestError,
  startedMessage,
  stem,
} from './request-outcome.js';
import { storeArtifactBytes } from './store-artifacts.js';

/** A small blob's bytes: read in place where the store keeps it on this disk, else streamed. */
async function readBlob(blobs: BlobStore, key: string): Promise<Buffer> {
  const local = blobs.localPath?.(key);
  if (local) return readFile(local);
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.openRead(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * runClaimedRequest for a small conversion that runs on bytes (run/in-memory.ts): the input read
 * from the blob store, the output written straight to it, no scratch folder. The run's timeline
 * events are kept and written with the end, in the step that finishes the request: the run takes
 * milliseconds, and a store write per event cost more than the conversion. Meanwhile a poller sees
 * the request running with its queued progress, then the whole trail and the end at once.
 */
export async function runInMemory(
  deps: RunRequestDeps,
  r: RequestRecord,
  signal: AbortSignal,
  onEvent?: (kind: string, message: string) => void,
  enginesDone?: () => void,
  claimToken?: string,
): Promise<RunOutcome> {
  const { store, blobs, engine } = deps;
  const trail: TimelineEvent[] = [];
  const event = (kind: string, message: string) => trail.push({ at: Date.now(), kind, message });
  event('started', startedMessage(r));
  let steps = r.progress.steps;
  try {
    if (!r.inputKey || !r.from || !r.to) throw new Error('queued request without input or conversion');
    const base = stem(r.filename);
    const result = await engine.convertInMemory!({
      input: await readBlob(blobs, r.inputKey),
      from: r.from,
      to: r.to,
      options: await deps.optionSecrets.open(r.options),
      baseName: base,
      signal,
      // Intake refused a file that is not its declared format (server/http/routes/intake.ts), on the
      // same stored bytes.
      declaredChecked: true,
      onProgress: (p) => {
        steps = p.steps;
      },
      onEvent: (e) => {
        onEvent?.(e.kind, e.message);
        event(e.kind, e.message);
      },
    });
    enginesDone?.();
    const artifact = await storeArtifactBytes(deps, r, result.output, base);
    // The end's progress counts the plan's steps: set them when intake planned another count.
    if (steps !== r.progress.steps) await store.updateProgress(r.id, { ...r.progress, steps }, Date.now());
    event('succeeded', `Conversion succeeded: artifact ${artifact.name}.`);
    const finished = await store.finishSucceeded(r.id, [artifact], Date.now(), trail);
    await dropInput(deps, r);
    if (!finished) {
      // Another run of a duplicate job ended it first: its artifact stands, this one goes.
      await blobs.delete(artifact.blobKey).catch(() => {});
      return 'dropped';
    }
    return 'succeeded';
  } catch (e) {
    if (signal.aborted) {
      // Stopped from outside: back to the queue (as the file path does), then the trail so far;
      // nothing when the claim was handed on meanwhile.
      if (!(await store.requeue(r.id, Date.now(), claimToken))) return 'dropped';
      for (const t of trail) await store.addEvent(r.id, t);
      await store.addEvent(r.id, { at: Date.now(), kind: 'requeued', message: REQUEUED_MESSAGE });
      return 'requeued';
    }
    if (!isFileconvError(e)) deps.log(`conversion ${r.id} failed: ${(e as Error)?.stack ?? String(e)}`);
    const error = requestError(e);
    const message = `Conversion failed (${error.code}): ${error.message}`;
    return (await failRequest(deps, r, error, message, trail)) ? 'failed' : 'dropped';
  }
}

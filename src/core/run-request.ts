import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isFileconvError } from '../errors/index.js';
import type { Progress } from '../run/types.js';
import { noWork } from '../run/work.js';
import { type ClaimTicket, MAX_ATTEMPTS, type RequestRecord } from '../store/types.js';
import { orderedWrites } from './ordered-writes.js';
import { settleQuota } from './quota-units.js';
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
import { runInMemory } from './run-in-memory.js';
import { storeArtifacts } from './store-artifacts.js';

export {
  type ConversionRunner,
  failRequest,
  type RunOutcome,
  type RunRequestDeps,
} from './request-outcome.js';

/**
 * A worker took the job of request `id`: claims it (nothing to do when it already ended, or when
 * another worker's live claim holds it) and runs it. With `claim`, the claim is that ticket's and
 * `claimed` is called once it holds (the worker starts its heartbeat).
 * Throws only when the stores fail, so the queue retries the job.
 */
export async function runRequestJob(
  deps: RunRequestDeps,
  id: string,
  signal: AbortSignal,
  onEvent?: (kind: string, message: string) => void,
  claim?: { ticket: ClaimTicket; claimed(): void },
): Promise<RunOutcome> {
  const claimed = await deps.store.claim(id, Date.now(), claim?.ticket);
  if (!claimed) return 'dropped';
  claim?.claimed();
  if (claimed.attempts > MAX_ATTEMPTS) {
    const message = `The conversion was interrupted ${claimed.attempts - 1} times; it was given up.`;
    return (await failRequest(deps, claimed, { code: 'CONVERT_FAILED', message }, message))
      ? 'failed'
      : 'dropped';
  }
  return runClaimedRequest(deps, claimed, signal, onEvent, undefined, claim?.ticket.token);
}

/**
 * Runs a claimed conversion (state `working`): a local copy of the input in a scratch folder, the
 * engines, each artifact stored, then the request finished, with its input deleted, either way.
 */
export async function runClaimedRequest(
  deps: RunRequestDeps,
  r: RequestRecord,
  signal: AbortSignal,
  onEvent?: (kind: string, message: string) => void,
  /** Called once the engines are done, before the outputs are stored (the queue frees a slot). */
  enginesDone?: () => void,
  /** The token of the claim this run holds (shared queue), which requeueing must match. */
  claimToken?: string,
): Promise<RunOutcome> {
  if (await runsInMemory(deps, r)) return runInMemory(deps, r, signal, onEvent, enginesDone, claimToken);
  const { store, blobs, scratch, engine } = deps;
  const writes = orderedWrites();
  const event = (kind: string, message: string) => {
    const at = Date.now();
    return writes.write(() => store.addEvent(r.id, { at, kind, message }));
  };
  let outDir: string | undefined;
  const work = noWork();
  // The request's own deadline, apart from the worker's signal: stopping a worker puts the
  // conversion back in the queue, a deadline fails it.
  const deadline = new AbortController();
  const timer = deps.deadlineMs ? setTimeout(() => deadline.abort(), deps.deadlineMs) : undefined;
  let lastPercent = -1;
  let lastStage = '';
  const onProgress = (p: Progress) => {
    // Writes only when something a poller would see changed.
    const percent = Math.floor(p.percent);
    if (percent === lastPercent && p.stage === lastStage) return;
    lastPercent = percent;
    lastStage = p.stage;
    const at = Date.now();
    writes
      .write(() => store.updateProgress(r.id, { ...p, percent }, at))
      .catch((e) => deps.log(`progress of ${r.id} not stored: ${(e as Error).message}`));
  };
  try {
    if (!r.inputKey || !r.to || (!r.from && !r.inputs))
      throw new Error('queued request without input or conversion');
    await event('started', startedMessage(r));
    onProgress({ percent: 0, stage: 'converting', step: 1, steps: r.progress.steps || 1 });
    const { from, to, inputKey } = r;
    const dir = await scratch.dir(r.id);
    outDir = dir;
    const base = stem(r.filename);
    const options = await deps.optionSecrets.open(r.options);
    const job = {
      to,
      options,
      outDir: join(dir, 'out'),
      baseName: base,
      signal: AbortSignal.any([signal, deadline.signal]),
      work,
      // Intake refused a file that is not its declared format (core/submit-*.ts), on the same
      // stored bytes.
      declaredChecked: true,
      onProgress,
      onEvent: (e: { kind: string; message: string }) => {
        onEvent?.(e.kind, e.message);
        event(e.kind, e.message).catch(() => {});
      },
    };
    const result = r.inputs
      ? await withLocalCopies(blobs, r.inputs, dir, (paths) => {
          if (!engine.merge) throw new Error('this worker cannot merge');
          const inputs = r.inputs!.map((i, n) => ({ path: paths[n]!, name: i.filename, from: i.format }));
          return engine.merge({ ...job, inputs });
        })
      : await blobs.withLocalCopy(inputKey, dir, (input) => engine.convert({ ...job, input, from: from! }));
    clearTimeout(timer);
    enginesDone?.();
    const steps = result.plan.steps.length;
    onProgress({ percent: 99, stage: 'storing', step: steps, steps });
    const artifacts = await storeArtifacts(deps, r, result.files, dir, base);
    const names = artifacts.map((a) => a.name).join(', ');
    // The end is the timeline's last event and the final progress: nothing written before it may land after.
    await writes.settled();
    const finished = await store.finishSucceeded(r.id, artifacts, Date.now(), {
      at: Date.now(),
      kind: 'succeeded',
      message: `Conversion succeeded: ${artifacts.length === 1 ? 'artifact' : 'artifacts'} ${names}.`,
    });
    await dropInput(deps, r);
    if (!finished) {
      // Another run of a duplicate job ended it first: its artifacts stand, these go.
      for (const a of artifacts) await blobs.delete(a.blobKey).catch(() => {});
      return 'dropped';
    }
    await settleQuota(deps, r, work, true);
    return 'succeeded';
  } catch (e) {
    await writes.settled();
    // Aborted from outside (the worker stops): the job goes back for another run rather than
    // failing the request, unless its claim was handed on meanwhile and another worker has it.
    if (signal.aborted) {
      if (!(await store.requeue(r.id, Date.now(), claimToken))) return 'dropped';
      await event('requeued', REQUEUED_MESSAGE);
      return 'requeued';
    }
    const error = deadline.signal.aborted
      ? { code: 'CONVERT_FAILED', message: pastDeadline(deps.deadlineMs!) }
      : requestError(e);
    if (!isFileconvError(e) && !deadline.signal.aborted)
      deps.log(`conversion ${r.id} failed: ${(e as Error)?.stack ?? String(e)}`);
    const message = `Conversion failed (${error.code}): ${error.message}`;
    return (await failRequest(deps, r, error, message, [], work)) ? 'failed' : 'dropped';
  } finally {
    clearTimeout(timer);
    if (outDir) await rm(outDir, { recursive: true, force: true }).catch(() => {});
  }
}

function pastDeadline(ms: number): string {
  const limit = ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
  return `The conversion ran past the request's time limit of ${limit} and was stopped.`;
}

/**
 * Lends local paths of several blobs at once (each store's withLocalCopy, nested), in their order.
 * Remote stores download each into its own folder under `dir`.
 */
async function withLocalCopies<T>(
  blobs: RunRequestDeps['blobs'],
  inputs: readonly { key: string }[],
  dir: string,
  fn: (paths: string[]) => Promise<T>,
): Promise<T> {
  const lend = async (i: number, paths: string[]): Promise<T> => {
    const input = inputs[i];
    if (!input) return fn(paths);
    const own = join(dir, `input-${i + 1}`);
    await mkdir(own, { recursive: true });
    return blobs.withLocalCopy(input.key, own, (path) => lend(i + 1, [...paths, path]));
  };
  return lend(0, []);
}

/**
 * Whether a claimed conversion runs on bytes in memory: the engines can (one in-process step) and
 * its input is small enough.
 */
async function runsInMemory(deps: RunRequestDeps, r: RequestRecord): Promise<boolean> {
  const { engine, blobs } = deps;
  if (!engine.inMemoryLimit || !engine.convertInMemory || !r.inputKey || !r.from || !r.to) return false;
  // A password that cannot be opened fails the request on the full path, which reports it.
  const options = await deps.optionSecrets.open(r.options).catch(() => undefined);
  if (!options) return false;
  const limit = await engine.inMemoryLimit({ from: r.from, to: r.to, options });
  if (limit <= 0) return false;
  const size = (await blobs.stat(r.inputKey))?.size;
  return size !== undefined && size <= limit;
}

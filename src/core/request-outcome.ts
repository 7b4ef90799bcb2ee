import { CONVERSION_DETAIL_CODES, isFileconvError, messageFor } from '../errors/index.js';
import type { InMemoryJob, InMemoryResult } from '../run/in-memory.js';
import type { MergeJob } from '../run/merge.js';
import type { ScratchSpace } from '../run/scratch.js';
import type { ConversionJob, ConversionResult } from '../run/types.js';
import { type EngineWork, noWork } from '../run/work.js';
import type { BlobStore, RequestRecord, RequestStore, StoredError, TimelineEvent } from '../store/types.js';
import type { OptionSecrets } from './option-secrets.js';
import { settleQuota } from './quota-units.js';

/**
 * What the worker side of a filed conversion shares between its file and in-memory paths and
 * the artifact store: its dependencies, how a run ends, and ending a request that failed.
 */

/** The engine side a worker needs: run a plan, zip several outputs. */
export interface ConversionRunner {
  convert(job: ConversionJob): Promise<ConversionResult>;
  /** Optional: several inputs converted and merged into one file (run/merge.ts). */
  merge?(job: MergeJob): Promise<ConversionResult>;
  zip(files: readonly { path: string; name: string }[], zipPath: string): Promise<void>;
  /**
   * Optional: the largest input a conversion runs on bytes with (run/in-memory.ts), 0 when it
   * never does; asked before the input's size, which a remote store answers with a request.
   */
  inMemoryLimit?(job: Pick<ConversionJob, 'from' | 'to' | 'options'>): Promise<number>;
  convertInMemory?(job: InMemoryJob): Promise<InMemoryResult>;
}

export interface RunRequestDeps {
  store: RequestStore;
  blobs: BlobStore;
  scratch: ScratchSpace;
  engine: ConversionRunner;
  retentionMs: number;
  /** Opens the passwords a request's options hold sealed (submit-conversion sealed them). */
  optionSecrets: OptionSecrets;
  log(message: string): void;
  /**
   * Moves the request's quota count by `units`: negative gives units back (true when some were),
   * positive counts engine work past what it drew (quota-units.ts).
   */
  adjustQuota?(request: RequestRecord, units: number): Promise<boolean>;
  /** The longest a conversion may run once started, in ms (all its steps and inputs); none when unset. */
  deadlineMs?: number;
}

/**
 * How a run ended: `succeeded` / `failed` were stored by this run; `requeued` went back to the
 * queue (its worker is stopping); `dropped` ended elsewhere first (a duplicate delivery), so this
 * run stored nothing.
 */
export type RunOutcome = 'succeeded' | 'failed' | 'requeued' | 'dropped';

/** The timeline's word when a run stopped from outside puts its conversion back in the queue. */
export const REQUEUED_MESSAGE = 'The worker stopped during the conversion; it will run again.';

/** The error a failed conversion's request shows: a detail code with its fixed message, INVALID_REQUEST, else CONVERT_FAILED. */
export function requestError(e: unknown): StoredError {
  if (isFileconvError(e)) {
    // A merge's input that failed is named (run/merge.ts puts "Input 2 (b.pdf): " before the message).
    const input =
      typeof e.extra.input === 'number' ? /^Input \d+ \([^)]*\): /.exec(e.message)?.[0] : undefined;
    if ((CONVERSION_DETAIL_CODES as readonly string[]).includes(e.code))
      return { code: e.code, message: `${input ?? ''}${messageFor(e.code)}` };
    // An engine that found the request wrong (pages the document lacks) says so with the request's code.
    if (e.code === 'CONVERT_FAILED' || e.code === 'INVALID_REQUEST')
      return { code: e.code, message: e.message };
  }
  return { code: 'CONVERT_FAILED', message: messageFor('CONVERT_FAILED') };
}

export function stem(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return (dot > 0 ? filename.slice(0, dot) : filename) || 'output';
}

export function startedMessage(r: RequestRecord): string {
  return `Conversion ${r.conversion} started${r.attempts > 1 ? ` (attempt ${r.attempts})` : ''}.`;
}

/**
 * Fails a running request once, deletes its input and settles its quota for the engine work it
 * did (`work`; none given: nothing ran, all its units come back); false when it had ended.
 * `before`: the run's events not stored yet, written ahead of `failed` in the same step.
 */
export async function failRequest(
  deps: RunRequestDeps,
  r: RequestRecord,
  error: StoredError,
  message: string,
  before: readonly TimelineEvent[] = [],
  work: EngineWork = noWork(),
): Promise<boolean> {
  const failed = await deps.store.finishFailed(r.id, error, Date.now(), [
    ...before,
    { at: Date.now(), kind: 'failed', message },
  ]);
  await dropInput(deps, r);
  // Settled only by the run that failed it, so a duplicate delivery never gives units back twice.
  if (failed) await settleQuota(deps, r, work, false);
  return failed;
}

/**
 * Deletes an ended request's inputs. Called after the end is stored, never before: a worker that
 * dies between the two leaves the input to the retention sweep (sweepLeftInputs), while one that
 * died with the input gone and the end not stored would leave a conversion no other worker can
 * run again.
 */
export async function dropInput(
  deps: Pick<RunRequestDeps, 'blobs' | 'store'>,
  r: Pick<RequestRecord, 'id' | 'inputKey' | 'inputs'>,
): Promise<void> {
  if (!r.inputKey) return;
  await deps.blobs.delete(r.inputKey).catch(() => {});
  for (const input of r.inputs ?? []) await deps.blobs.delete(input.key).catch(() => {});
  await deps.store.clearInputKey(r.id);
}

import { formatMismatch } from '../detect/declared.js';
import { FileconvError, isFileconvError } from '../errors/index.js';
import { type FormatId, resolveFormat } from '../formats/index.js';
import { MERGE_LANE } from '../plan/lane.js';
import { checkInputCount, inputLabel } from '../run/merge-limits.js';
import type { RequestInput } from '../store/types.js';
import { stem } from './request-outcome.js';
import { sourceFormatOf } from './source-format.js';
import {
  type ConversionSubmission,
  detectMessage,
  detectStored,
  fileRequest,
  type StoredInput,
  type SubmitDeps,
  startFiled,
} from './submit-conversion.js';

/** Several stored inputs to merge into one file, in the order they were sent. */
export interface MergeSubmission extends Omit<ConversionSubmission, 'input'> {
  inputs: readonly StoredInput[];
}

/** What validating a merge needs of the engine: plans every input and the merge, throws as the planner does. */
export interface MergeChecker {
  checkMerge?(job: {
    inputs: { name: string; from: FormatId }[];
    to: FormatId;
    options: unknown;
  }): Promise<void>;
}

/** The target and, with a `<from>-<to>` conversion key, the one source format every input must be. */
function targetOf(sub: MergeSubmission): { to: FormatId; from?: FormatId } {
  if (sub.conversion !== undefined) {
    const key = sub.conversion;
    for (let i = key.indexOf('-'); i > 0; i = key.indexOf('-', i + 1)) {
      const from = resolveFormat(key.slice(0, i))?.id;
      const to = resolveFormat(key.slice(i + 1))?.id;
      if (from && to) {
        if (sub.to !== undefined && resolveFormat(sub.to)?.id !== to)
          throw new FileconvError(
            'INVALID_REQUEST',
            `meta.to (${sub.to.slice(0, 20)}) does not match the conversion ${from}-${to}.`,
          );
        return { from, to };
      }
    }
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `The conversion "${key.slice(0, 60)}" is not in the catalog; see GET /api/public/conversions.`,
    );
  }
  const to = sub.to === undefined ? undefined : resolveFormat(sub.to)?.id;
  if (!to)
    throw new FileconvError(
      'INVALID_REQUEST',
      sub.to === undefined
        ? 'Several inputs are merged into one file: give its format as meta.to (like "pdf").'
        : `meta.to (${sub.to.slice(0, 20)}) is not a known format.`,
    );
  return { to };
}

/** The same error, naming the input (index from 0) it is about. */
function aboutInput(e: unknown, index: number, name: string): unknown {
  if (!isFileconvError(e)) return e;
  return new FileconvError(e.code, `${capital(inputLabel(index, name))}: ${e.message}`, {
    cause: e,
    extra: { ...e.extra, input: index + 1 },
  });
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Files a merge of several stored inputs into one file: every input detected (and refused when its
 * bytes are not what it must be converted from), the whole merge planned and its options checked
 * (src/run/merge.ts), one quota unit taken, the request recorded with its inputs in order and
 * queued. The inputs belong to this call until the request is filed: refused, they are deleted.
 */
export async function submitMerge(
  deps: SubmitDeps & { engine: MergeChecker },
  sub: MergeSubmission,
): Promise<{ id: string; inputs: RequestInput[] }> {
  let filed = false;
  try {
    checkInputCount(sub.inputs.length);
    const { to, from: only } = targetOf(sub);
    await sub.webhook?.check();
    const inputs: RequestInput[] = [];
    const detected: string[] = [];
    for (const [i, input] of sub.inputs.entries()) {
      const { filename, contentType } = input;
      try {
        if (input.size === 0) throw new FileconvError('INTAKE_FAILED', 'The file is empty.');
        const report = await detectStored(deps, input.key, { filename, contentType, declared: only });
        const from = only ?? sourceFormatOf(report);
        if (!from)
          throw new FileconvError(
            'UNSUPPORTED_CONVERSION',
            'Its format could not be told from its bytes or name.',
          );
        // Refused before any engine runs, as a single upload is: bytes that are not their format.
        const mismatch = formatMismatch(from, { id: report.detected, confidence: report.confidence });
        if (mismatch) throw mismatch;
        // A merge takes no password, so a protected document would fail only once every input
        // before it had been converted: refused now, before anything is filed or counted.
        if (report.encrypted)
          throw new FileconvError(
            'INVALID_REQUEST',
            'It is password-protected, and a merge opens no protected input: convert it on its own with its password first, then merge the result.',
          );
        inputs.push({ key: input.key, filename, format: from, size: input.size });
        detected.push(`${capital(inputLabel(i, filename))}: ${detectMessage(report)}`);
      } catch (e) {
        throw aboutInput(e, i, filename);
      }
    }
    if (!deps.engine.checkMerge)
      throw new FileconvError('UNSUPPORTED_CONVERSION', 'This server does not merge several inputs.');
    await deps.engine.checkMerge({
      inputs: inputs.map((i) => ({ name: i.filename, from: i.format })),
      to,
      options: sub.options,
    });
    const detectedAt = Date.now();
    const total = inputs.reduce((n, i) => n + i.size, 0);
    const first = inputs[0]!;
    await fileRequest(
      deps,
      sub,
      {
        conversion: `merge-${to}`,
        from: undefined,
        to,
        filename: `${stem(first.filename)}-merged.${to}`,
        inputKey: first.key,
        inputs,
        steps: inputs.length + 1,
        quota: 'conversions',
        lane: MERGE_LANE,
      },
      [
        {
          at: sub.receivedAt,
          kind: 'received',
          message: `Received ${inputs.length} files (${total} bytes) to merge into one ${to}: ${inputs.map((i) => i.filename).join(', ')}.`,
        },
        ...detected.map((message) => ({ at: detectedAt, kind: 'detected', message })),
      ],
    );
    filed = true;
    await startFiled(deps, sub, MERGE_LANE);
    return { id: sub.id, inputs };
  } finally {
    if (!filed) for (const i of sub.inputs) await deps.blobs.delete(i.key).catch(() => {});
  }
}

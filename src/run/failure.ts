import { CONVERSION_DETAIL_CODES, type ErrorCode, FileconvError, messageFor } from '../errors/index.js';
import { EngineProcessError } from './process.js';

// Most telling first: a password explains everything after it; "malformed" is the vaguest.
const SPECIFICITY: readonly ErrorCode[] = [
  'ENCRYPTED_DOCUMENT',
  'OUTPUT_TOO_LARGE',
  'INPUT_TOO_LARGE',
  'NEEDS_OCR',
  'MALFORMED_DOCUMENT',
];

/** Removes local paths from an engine message, so it can be shown to a client. */
export function scrubPaths(message: string): string {
  return message
    .replace(/(?:file:\/\/)?(?:\/[\w.@+~-]+){2,}\/?/g, '<file>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}

/**
 * What a client may read of one engine's failure (the timeline's "failed" line): our own messages,
 * free of paths and memory addresses, and of an engine's raw output only how it stopped. What an
 * engine printed (a Python traceback, ImageMagick's complaints) stays in the error's cause.
 */
export function failureText(error: unknown): string {
  if (error instanceof EngineProcessError)
    return `${error.engine} stopped with ${error.signalName ?? `exit code ${error.exitCode}`}`;
  const message = error instanceof Error ? error.message : String(error);
  return scrubPaths(message.replace(/\b0x[0-9a-f]{4,}\b/gi, '<address>'));
}

/** The detail code an error carries, if any. */
export function detailCode(e: unknown): ErrorCode | undefined {
  if (e instanceof FileconvError && (CONVERSION_DETAIL_CODES as readonly string[]).includes(e.code))
    return e.code;
  return undefined;
}

/**
 * The error a step reports once every engine failed: the most specific detail code seen (with its
 * fixed message), else CONVERT_FAILED with a short message free of local paths.
 */
export function stepFailure(
  errors: readonly { engine: string; error: unknown }[],
  from: string,
  to: string,
): FileconvError {
  // A request an engine found wrong (pages the document does not have) is the request's fault.
  const refused = errors.find((e) => e.error instanceof FileconvError && e.error.code === 'INVALID_REQUEST');
  if (refused) return refused.error as FileconvError;
  const codes = new Set(errors.map((e) => detailCode(e.error)).filter((c) => c !== undefined));
  const code = SPECIFICITY.find((c) => codes.has(c));
  const cause = errors.map((e) => e.error);
  if (code) return new FileconvError(code, messageFor(code), { cause });
  const last = errors[errors.length - 1];
  // A FileconvError CONVERT_FAILED message is written for people (a timeout, say); engine errors are not.
  const said = last?.error instanceof FileconvError ? scrubPaths(last.error.message) : undefined;
  const engines = errors.map((e) => e.engine).join(', then ');
  const message = said
    ? `Converting ${from} to ${to} failed (${engines}): ${said}`
    : `Converting ${from} to ${to} failed (${engines}).`;
  return new FileconvError('CONVERT_FAILED', message, { cause });
}

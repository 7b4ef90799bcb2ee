import { CONVERSION_DETAIL_CODES, type ErrorCode, FileconvError, messageFor } from '../errors/index.js';

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

import type { ErrorCode } from './index.js';

/**
 * The CLI's exit codes (docs/cli.md#exit-codes). OK, PARTIAL and the interrupt codes are outcomes
 * of a whole run, which no single error has; a failure exits with its code's entry in EXIT_CODE.
 */
export const EXIT = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  UNSUPPORTED: 3,
  PARTIAL: 4,
  /** 128 + the signal's number, as shells report a process a signal stopped. */
  SIGINT: 130,
  SIGTERM: 143,
} as const;

/** The exit code of a command that failed with each error code (HTTP_STATUS's counterpart). */
export const EXIT_CODE: Record<ErrorCode, number> = {
  NEEDS_OCR: EXIT.FAILED,
  ENCRYPTED_DOCUMENT: EXIT.FAILED,
  MALFORMED_DOCUMENT: EXIT.FAILED,
  OUTPUT_TOO_LARGE: EXIT.FAILED,
  INPUT_TOO_LARGE: EXIT.FAILED,
  CONVERT_FAILED: EXIT.FAILED,
  INTAKE_FAILED: EXIT.FAILED,
  INVALID_REQUEST: EXIT.USAGE,
  UNSUPPORTED_CONVERSION: EXIT.UNSUPPORTED,
  FORMAT_MISMATCH: EXIT.FAILED,
  INVALID_SOURCE_URL: EXIT.FAILED,
  SOURCE_URL_BLOCKED: EXIT.FAILED,
  SOURCE_URL_FETCH_FAILED: EXIT.FAILED,
  FILE_NOT_FOUND: EXIT.FAILED,
  PATH_NOT_ALLOWED: EXIT.FAILED,
  INVALID_API_KEY: EXIT.FAILED,
  API_KEY_REQUIRED: EXIT.FAILED,
  METRICS_TOKEN_REQUIRED: EXIT.FAILED,
  QUOTA_EXCEEDED: EXIT.FAILED,
  RATE_LIMITED: EXIT.FAILED,
  REQUEST_NOT_FOUND: EXIT.FAILED,
  ARTIFACT_NOT_FOUND: EXIT.FAILED,
  ARTIFACT_EXPIRED: EXIT.FAILED,
  LINK_EXPIRED: EXIT.FAILED,
  INVALID_SIGNATURE: EXIT.FAILED,
  NOT_FOUND: EXIT.FAILED,
  METHOD_NOT_ALLOWED: EXIT.FAILED,
  CONVERT_API_UNAVAILABLE: EXIT.FAILED,
  INSUFFICIENT_STORAGE: EXIT.FAILED,
  INTERNAL_ERROR: EXIT.FAILED,
};

/**
 * `fileconv detect` reads files rather than converting them, and published its own codes before
 * this table: a bad option 1, an unreadable file 2, a mismatch under --strict 3. Scripts check
 * them, so they stay.
 */
export const DETECT_EXIT_CODE = {
  INVALID_REQUEST: 1,
  FILE_NOT_FOUND: 2,
  FORMAT_MISMATCH: 3,
} as const satisfies Partial<Record<ErrorCode, number>>;

/** The exit code for an error code as a JSON result line carries it (any other text: FAILED). */
export function exitCodeOf(code: string): number {
  return Object.hasOwn(EXIT_CODE, code) ? EXIT_CODE[code as ErrorCode] : EXIT.FAILED;
}

/**
 * The exit code of a run of several inputs: OK when all succeeded, PARTIAL when some did, else
 * the failures' shared exit code, or FAILED when they differ.
 */
export function batchExitCode(results: readonly { ok: boolean; error?: { code: string } }[]): number {
  const failed = results.filter((r) => !r.ok);
  if (failed.length === 0) return EXIT.OK;
  if (failed.length < results.length) return EXIT.PARTIAL;
  const codes = new Set(failed.map((r) => exitCodeOf(r.error?.code ?? '')));
  return codes.size === 1 ? [...codes][0]! : EXIT.FAILED;
}

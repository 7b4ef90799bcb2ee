/**
 * Every failure the core reports is a FileconvError with one of these codes. The HTTP layer maps
 * codes to statuses in one place (HTTP_STATUS); the CLI maps them to exit codes in another
 * (EXIT_CODE, in exit-codes.ts).
 */
export const ERROR_CODES = {
  // conversion detail codes (decisions.md: fixed messages)
  NEEDS_OCR:
    'The PDF has no text layer; convert it again with the option ocr set to true to read it with OCR.',
  ENCRYPTED_DOCUMENT:
    'The document is password-protected and no password, or a wrong one, was given: give its password with the option password (--password or -O password=... on the command line, "options": {"password": "..."} in the meta of an API request), or remove the password and try again.',
  MALFORMED_DOCUMENT: 'No engine could read the file; it is damaged or not what its type says.',
  OUTPUT_TOO_LARGE:
    'The result would be larger than this server allows (too many pages, frames, pixels or bytes); nothing was kept. Convert a part of it (the pages, start or duration options) or at a lower dpi.',
  INPUT_TOO_LARGE:
    'The file claims more than this server reads (an image of too many pixels, pages too large to read, data nested too deeply); nothing was converted. Send a smaller or simpler file.',
  CONVERT_FAILED: 'The conversion failed.',
  // intake and request
  INTAKE_FAILED: 'The upload failed.',
  INVALID_REQUEST: 'The request is not valid.',
  UNSUPPORTED_CONVERSION: 'That conversion pair is not in the catalog.',
  FORMAT_MISMATCH: 'The file is a different kind of thing than its declared format; it was not converted.',
  INVALID_SOURCE_URL: 'source_url is missing or is not a valid public http(s) URL.',
  SOURCE_URL_BLOCKED: 'The source URL resolves to a private, loopback or link-local address.',
  SOURCE_URL_FETCH_FAILED: 'The source URL could not be downloaded.',
  FILE_NOT_FOUND: 'The file does not exist or cannot be read.',
  PATH_NOT_ALLOWED: 'The path is outside the folders this server may read and write.',
  // server
  INVALID_API_KEY: 'The API key is invalid or revoked.',
  API_KEY_REQUIRED: 'This endpoint needs an API key as a Bearer token.',
  METRICS_TOKEN_REQUIRED: 'GET /metrics needs the metrics token as a Bearer token.',
  QUOTA_EXCEEDED: 'The daily quota of this identity is used up.',
  RATE_LIMITED: 'Too many write requests in the last minute.',
  REQUEST_NOT_FOUND: 'No request has that id.',
  ARTIFACT_NOT_FOUND: 'The request has no artifact of that name.',
  ARTIFACT_EXPIRED: 'The result expired and was deleted; convert the file again.',
  LINK_EXPIRED: 'The download link has expired; ask the artifact path for a new one.',
  INVALID_SIGNATURE: 'The download link is not valid.',
  NOT_FOUND: 'No such route.',
  METHOD_NOT_ALLOWED: 'That method is not allowed on this route.',
  CONVERT_API_UNAVAILABLE: 'The service is temporarily unavailable; retry after a minute.',
  INSUFFICIENT_STORAGE: 'The server is out of disk space; retry later.',
  INTERNAL_ERROR: 'Something went wrong on our side.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The detail codes a failed conversion may carry in its request's error.code. */
export const CONVERSION_DETAIL_CODES = [
  'NEEDS_OCR',
  'ENCRYPTED_DOCUMENT',
  'MALFORMED_DOCUMENT',
  'OUTPUT_TOO_LARGE',
  'INPUT_TOO_LARGE',
] as const;

export class FileconvError extends Error {
  readonly code: ErrorCode;
  /** Extra fields for the error body (reset_at, detail). */
  readonly extra: Record<string, unknown>;
  /** Internal cause, never sent to a client. */
  override readonly cause?: unknown;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message ?? ERROR_CODES[code]);
    this.name = 'FileconvError';
    this.code = code;
    this.extra = options.extra ?? {};
    this.cause = options.cause;
  }
}

export function isFileconvError(e: unknown): e is FileconvError {
  return e instanceof FileconvError;
}

/** The fixed message for a code. */
export function messageFor(code: ErrorCode): string {
  return ERROR_CODES[code];
}

export const HTTP_STATUS: Record<ErrorCode, number> = {
  NEEDS_OCR: 502,
  ENCRYPTED_DOCUMENT: 502,
  MALFORMED_DOCUMENT: 502,
  OUTPUT_TOO_LARGE: 502,
  INPUT_TOO_LARGE: 502,
  CONVERT_FAILED: 502,
  INTAKE_FAILED: 422,
  INVALID_REQUEST: 400,
  UNSUPPORTED_CONVERSION: 422,
  FORMAT_MISMATCH: 422,
  INVALID_SOURCE_URL: 400,
  SOURCE_URL_BLOCKED: 400,
  SOURCE_URL_FETCH_FAILED: 502,
  FILE_NOT_FOUND: 404,
  PATH_NOT_ALLOWED: 403,
  INVALID_API_KEY: 401,
  API_KEY_REQUIRED: 401,
  METRICS_TOKEN_REQUIRED: 401,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  REQUEST_NOT_FOUND: 404,
  ARTIFACT_NOT_FOUND: 404,
  ARTIFACT_EXPIRED: 404,
  LINK_EXPIRED: 403,
  INVALID_SIGNATURE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONVERT_API_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
  INTERNAL_ERROR: 500,
};

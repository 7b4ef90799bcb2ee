import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  type ErrorCode,
  FileconvError,
  HTTP_STATUS,
  isFileconvError,
  messageFor,
} from '../../errors/index.js';
import { shownText } from '../../intake/untrusted-text.js';
import { UploadTooLargeError } from '../../intake/upload.js';
import { UploadTooSlowError } from '../../intake/upload-pace.js';

/** The JSON error body every failure gets: `{"error": {"code", "message", ...extra}}`. */
export function errorBody(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
  // Messages may quote what a client sent (a conversion key, an option's name).
  return { error: { code, message: shownText(message), ...extra } };
}

/**
 * HTTP_STATUS decides, except that an upload over the size limit is 413 and one that fell behind
 * its pace 408, rather than INTAKE_FAILED's 422.
 */
export function statusOf(e: FileconvError): number {
  if (e instanceof UploadTooLargeError) return 413;
  if (e instanceof UploadTooSlowError) return 408;
  return HTTP_STATUS[e.code];
}

/** Answers a FileconvError with its status (from the one HTTP_STATUS map) and body. */
export function errorResponse(c: Context, e: FileconvError, headers: Record<string, string> = {}): Response {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  if (e.code === 'CONVERT_API_UNAVAILABLE') c.header('Retry-After', '60');
  c.header('Cache-Control', 'no-store');
  return c.json(errorBody(e.code, e.message, e.extra), statusOf(e) as ContentfulStatusCode);
}

/**
 * The app's error handler: a FileconvError keeps its code and message (which are written for
 * clients); anything else is logged and becomes INTERNAL_ERROR, so no stack or path leaks.
 */
export function handleError(e: unknown, c: Context, log: (message: string) => void): Response {
  if (isFileconvError(e)) return errorResponse(c, e);
  log(`internal error on ${c.req.method} ${c.req.path}: ${(e as Error)?.stack ?? String(e)}`);
  return errorResponse(c, new FileconvError('INTERNAL_ERROR', messageFor('INTERNAL_ERROR')));
}

export function fail(code: ErrorCode, message?: string, extra?: Record<string, unknown>): never {
  throw new FileconvError(code, message, extra ? { extra } : {});
}

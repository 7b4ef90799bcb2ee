import { setTimeout as sleep } from 'node:timers/promises';
import { ERROR_CODES, type ErrorCode, FileconvError } from '../errors/index.js';

/** How the client retries writes the server asks it to send again later. */
export interface RetryPolicy {
  /** Retries after a 429 or 503 that carries Retry-After (default 3). */
  retries: number;
  /** The longest Retry-After honoured, in seconds (default 120); a longer one fails at once. */
  maxWaitSeconds: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, maxWaitSeconds: 120 };

const isKnownCode = (code: unknown): code is ErrorCode =>
  typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);

/**
 * The error an answer of the server stands for. The server's own code and message are kept (and
 * its other error fields, such as reset_at and detail, in `extra`), so callers and the CLI's exit
 * codes see what a local run would have thrown.
 */
export function answerError(status: number, body: unknown): FileconvError {
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  if (error && isKnownCode(error.code)) {
    const { code, message, ...extra } = error;
    return new FileconvError(code, typeof message === 'string' ? message : undefined, {
      extra: { ...extra, status },
    });
  }
  // Not one of ours: a proxy's page, or a newer server's code this client does not know.
  const code = status >= 500 ? 'CONVERT_API_UNAVAILABLE' : 'INTERNAL_ERROR';
  const said = error && typeof error.code === 'string' ? ` ${error.code.slice(0, 60)}` : '';
  return new FileconvError(code, `The server answered ${status}${said}.`, { extra: { status } });
}

/** A request that never got an answer (refused connection, DNS, reset). */
export function unreachable(server: string, e: unknown): FileconvError {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (e as Error).message;
  return new FileconvError('CONVERT_API_UNAVAILABLE', `Cannot reach the server at ${server}: ${why}.`, {
    cause: e,
  });
}

/** Retry-After in seconds (a number of seconds, or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * Sends a call again while the server answers 429 (the per-minute write limit) or 503 (queue full,
 * restarting) with a Retry-After it is worth waiting for. A daily quota's 429 has no Retry-After
 * (it resets at midnight), so it is returned at once, as is the answer after the last retry.
 */
export async function withRetry<T extends { response: Response }>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const result = await call();
    const { status, headers } = result.response;
    if ((status !== 429 && status !== 503) || attempt >= policy.retries) return result;
    const wait = retryAfterSeconds(headers.get('retry-after'));
    if (wait === undefined || wait > policy.maxWaitSeconds) return result;
    await sleep(wait * 1000, undefined, { signal });
  }
}

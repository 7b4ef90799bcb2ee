import { open, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { type Agent, fetch, type Response } from 'undici';
import { FileconvError } from '../errors/index.js';
import { filenameFromContentDisposition, filenameFromUrl, sanitizeFilename } from './filename.js';
import { checkHost, type PrivateAllowance, type Resolver, systemResolver } from './guard.js';
import { createPinnedAgent, describeNetworkError } from './pinned-agent.js';
import { checkFetchableUrl, parseSourceUrl } from './source-url.js';

export type { PrivateAllowance, PrivateTarget, ResolvedAddress, Resolver } from './guard.js';

/** 200 MiB, the upload limit; a fetched file may not be larger once decoded. */
export const DEFAULT_MAX_FETCH_BYTES = 209_715_200;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_TOTAL_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface FetchToFileOptions {
  /** Lift the public-address rule: `true` for a user's own machine (CLI); a predicate only in tests. */
  allowPrivate?: PrivateAllowance;
  /** Largest body accepted, counted on the decoded bytes. */
  maxBytes?: number;
  connectTimeoutMs?: number;
  /** Deadline for the whole fetch: every lookup, redirect and the body. */
  totalTimeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Resolves host names to all their addresses; tests inject a stub. */
  resolver?: Resolver;
}

export interface FetchedFile {
  path: string;
  /**
   * The sanitised name the source gave (Content-Disposition, else the URL's last segment). The
   * base name of `path` is the same unless destDir already held it (then `name-2.ext`, ...).
   */
  filename: string;
  /** Media type from Content-Type without parameters; application/octet-stream when absent. */
  contentType: string;
  size: number;
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Downloads a user-given URL into `destDir`, refusing anything that would reach a non-public
 * address: the URL, every redirect hop, and every address each host resolves to are checked, and
 * the connection goes to the address that was checked (no second lookup an attacker's DNS could
 * answer differently). Failures are FileconvErrors; a partial file is never left behind.
 */
export async function fetchToFile(
  url: string,
  destDir: string,
  opts: FetchToFileOptions = {},
): Promise<FetchedFile> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_FETCH_BYTES;
  const totalTimeoutMs = opts.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  const source = parseSourceUrl(url);
  const deadline = AbortSignal.timeout(totalTimeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const pinned = new Map<string, string>();
  const agent = createPinnedAgent(
    pinned,
    opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    totalTimeoutMs,
  );
  let written: string | undefined;
  try {
    const { response, finalUrl } = await followRedirects(source, {
      agent,
      pinned,
      signal,
      resolver: opts.resolver ?? systemResolver,
      allowPrivate: opts.allowPrivate ?? false,
      maxRedirects: opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
    });
    checkResponse(response, maxBytes);
    const filename = sanitizeFilename(
      filenameFromContentDisposition(response.headers.get('content-disposition')) ??
        filenameFromUrl(finalUrl),
    );
    const file = await openFresh(destDir, filename);
    written = file.path;
    const size = await writeBody(response, file.handle, maxBytes, signal);
    if (size === 0)
      throw new FileconvError('SOURCE_URL_FETCH_FAILED', 'The source URL answered with an empty body.');
    return { path: file.path, filename, contentType: mediaType(response), size, finalUrl: finalUrl.href };
  } catch (e) {
    if (written) await rm(written, { force: true });
    throw toFetchError(e, { deadline, callerSignal: opts.signal, totalTimeoutMs });
  } finally {
    agent.destroy().catch(() => {});
  }
}

async function followRedirects(
  start: URL,
  ctx: {
    agent: Agent;
    pinned: Map<string, string>;
    signal: AbortSignal;
    resolver: Resolver;
    allowPrivate: PrivateAllowance;
    maxRedirects: number;
  },
): Promise<{ response: Response; finalUrl: URL }> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const address = await checkHost(url, ctx);
    ctx.pinned.set(url.hostname.replace(/^\[|\]$/g, ''), address);
    const response = await fetch(url, {
      dispatcher: ctx.agent,
      redirect: 'manual',
      signal: ctx.signal,
      headers: { 'user-agent': 'fileconv', accept: '*/*' },
    });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, finalUrl: url };
    await response.body?.cancel().catch(() => {});
    if (hop >= ctx.maxRedirects) {
      throw new FileconvError(
        'SOURCE_URL_FETCH_FAILED',
        `The source URL redirected more than ${ctx.maxRedirects} times.`,
      );
    }
    const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
    if (!next)
      throw new FileconvError('SOURCE_URL_FETCH_FAILED', 'The source URL redirected to an invalid URL.');
    checkFetchableUrl(next, 'SOURCE_URL_FETCH_FAILED');
    url = next;
  }
}

function checkResponse(response: Response, maxBytes: number): void {
  if (response.status < 200 || response.status > 299) {
    response.body?.cancel().catch(() => {});
    throw new FileconvError('SOURCE_URL_FETCH_FAILED', `The source URL answered HTTP ${response.status}.`);
  }
  // Content-Length is the encoded size; it settles the question early only for unencoded bodies.
  const declared = Number(response.headers.get('content-length'));
  if (!response.headers.get('content-encoding') && Number.isFinite(declared) && declared > maxBytes) {
    response.body?.cancel().catch(() => {});
    throw tooLarge(maxBytes);
  }
}

function tooLarge(maxBytes: number): FileconvError {
  return new FileconvError(
    'SOURCE_URL_FETCH_FAILED',
    `The source file is too large: more than ${maxBytes} bytes.`,
  );
}

async function openFresh(destDir: string, filename: string) {
  const ext = extname(filename);
  const stem = filename.slice(0, filename.length - ext.length);
  for (let n = 1; ; n++) {
    const path = join(destDir, n === 1 ? filename : `${stem}-${n}${ext}`);
    try {
      return { path, handle: await open(path, 'wx') };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw e;
    }
  }
}

/** Streams the (already decoded) body to disk, stopping as soon as it passes `maxBytes`. */
async function writeBody(
  response: Response,
  handle: Awaited<ReturnType<typeof open>>,
  maxBytes: number,
  signal: AbortSignal,
): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
  if (!response.body) {
    await handle.close();
    return 0;
  }
  await pipeline(Readable.fromWeb(response.body as WebReadableStream), counter, handle.createWriteStream(), {
    signal,
  });
  return size;
}

function mediaType(response: Response): string {
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return type === '' ? 'application/octet-stream' : type;
}

function toFetchError(
  e: unknown,
  ctx: { deadline: AbortSignal; callerSignal?: AbortSignal; totalTimeoutMs: number },
): FileconvError {
  if (e instanceof FileconvError) return e;
  // Our own disk failing is not the source's fault.
  const { code, syscall } = e as NodeJS.ErrnoException;
  if (syscall && ['open', 'write', 'close'].includes(syscall)) {
    return code === 'ENOSPC' || code === 'EDQUOT'
      ? new FileconvError('INSUFFICIENT_STORAGE', undefined, { cause: e })
      : new FileconvError('INTERNAL_ERROR', undefined, { cause: e });
  }
  if (ctx.deadline.aborted) {
    return new FileconvError(
      'SOURCE_URL_FETCH_FAILED',
      `The source URL did not finish downloading within ${Math.round(ctx.totalTimeoutMs / 1000)} s.`,
      { cause: e },
    );
  }
  if (ctx.callerSignal?.aborted) {
    return new FileconvError('SOURCE_URL_FETCH_FAILED', 'The download of the source URL was cancelled.', {
      cause: e,
    });
  }
  return new FileconvError(
    'SOURCE_URL_FETCH_FAILED',
    `The source URL could not be downloaded: ${describeNetworkError(e)}.`,
    {
      cause: e,
    },
  );
}

import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { FileconvError } from '../errors/index.js';
import { answerError } from './answers.js';

/** A file to send: a path on disk, its bytes, or a Blob. */
export type ClientInput = string | Uint8Array | Blob;

/** An upload part: the file's bytes (read from disk as they are sent) and the name it goes by. */
export interface Upload {
  blob: Blob;
  filename: string;
}

/**
 * The part of an input. A path is sent from disk as it is read (never held in memory whole); its
 * name is the declared format unless `filename` says otherwise. Bytes with no name go as `upload`.
 */
export async function uploadOf(input: ClientInput, filename?: string): Promise<Upload> {
  if (typeof input === 'string') {
    if (!(await stat(input).catch(() => undefined))?.isFile()) {
      throw new FileconvError('FILE_NOT_FOUND', `${input} does not exist or is not a file.`);
    }
    return { blob: await openAsBlob(input), filename: filename ?? basename(input) };
  }
  const blob = input instanceof Blob ? input : new Blob([input as Uint8Array<ArrayBuffer>]);
  return { blob, filename: filename ?? 'upload' };
}

/**
 * Downloads an artifact to `path`. The artifact path answers a redirect to a signed link; the
 * link is followed without the API key, since it may lead to another host (S3 presigned links).
 * A download cut short leaves no partial file behind.
 */
export async function downloadTo(
  url: string,
  path: string,
  init: { headers: Record<string, string>; fetch: typeof fetch; signal?: AbortSignal },
): Promise<string> {
  const first = await init.fetch(url, { headers: init.headers, redirect: 'manual', signal: init.signal });
  const location = first.status >= 300 && first.status < 400 ? first.headers.get('location') : null;
  let answer = first;
  if (location) {
    await first.body?.cancel();
    answer = await init.fetch(new URL(location, url), { signal: init.signal });
  }
  if (!answer.ok || !answer.body) {
    const text = await answer.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {}
    throw answerError(answer.status, body);
  }
  await mkdir(dirname(path), { recursive: true });
  try {
    await pipeline(Readable.fromWeb(answer.body as ReadableStream), createWriteStream(path), {
      signal: init.signal,
    });
  } catch (e) {
    await rm(path, { force: true });
    throw e;
  }
  return path;
}

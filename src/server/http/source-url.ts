import { rm, stat } from 'node:fs/promises';
import { FileconvError } from '../../errors/index.js';
import { sanitizeFilename } from '../../intake/filename.js';
import { parseSourceUrl } from '../../intake/source-url.js';
import type { UploadedFile } from '../../intake/upload.js';
import type { ServerContext } from '../context.js';

/**
 * Fetches meta.source_url (into this node's scratch space, then) into the blob store as the request's input (before the 202, as
 * decisions.md says). Without a URL intake configured, a well-formed URL answers 502
 * SOURCE_URL_FETCH_FAILED saying so.
 */
export async function fetchSourceUrl(
  ctx: ServerContext,
  raw: string,
  key: string,
  signal: AbortSignal,
): Promise<UploadedFile> {
  const url = parseSourceUrl(raw);
  if (!ctx.urlIntake) {
    throw new FileconvError(
      'SOURCE_URL_FETCH_FAILED',
      'Fetching URL sources is not enabled on this server; upload the file instead.',
    );
  }
  const dir = await ctx.scratch.dir('fetch');
  try {
    const fetched = await ctx.urlIntake.fetch(url.href, dir, { signal });
    const { size } = await stat(fetched.path);
    if (size > ctx.config.maxUpload) {
      throw new FileconvError(
        'SOURCE_URL_FETCH_FAILED',
        `The file at the URL is larger than the limit of ${ctx.config.maxUpload} bytes.`,
      );
    }
    await ctx.blobs.putFile(key, fetched.path);
    return { key, filename: sanitizeFilename(fetched.filename), contentType: fetched.contentType, size };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

import { Readable } from 'node:stream';
import type { Context, Hono } from 'hono';
import { FileconvError } from '../../../errors/index.js';
import { contentDisposition } from '../../../store/content-disposition.js';
import type { ArtifactRecord } from '../../../store/types.js';
import { decodeOpaque, LINK_TTL_SECONDS } from '../../access/tokens.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { signedLinkQuerySchema } from '../schemas/query.js';

type Range = { start: number; end: number } | 'unsatisfiable' | undefined;

/** One `bytes=` range; several ranges or a malformed header are ignored (the whole file is sent). */
export function parseRange(header: string | undefined, size: number): Range {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

export function registerFileRoutes(app: Hono<AppEnv>, ctx: ServerContext): void {
  const serveFile = async (c: Context<AppEnv>) => {
    const opaque = c.req.param('opaque') ?? '';
    const link = signedLinkQuerySchema.safeParse(c.req.query());
    if (!link.success || !ctx.signer.verify(opaque, link.data.expires, link.data.signature)) {
      throw new FileconvError('INVALID_SIGNATURE');
    }
    const { expires } = link.data;
    if (expires < Math.floor(Date.now() / 1000)) throw new FileconvError('LINK_EXPIRED');
    const target = decodeOpaque(opaque);
    const artifact = target && (await ctx.store.artifact(target.requestId, target.name));
    if (!artifact) throw new FileconvError('ARTIFACT_NOT_FOUND');
    const blob = artifact.expired ? undefined : await ctx.blobs.stat(artifact.blobKey);
    if (!blob) throw new FileconvError('ARTIFACT_EXPIRED');

    if (ctx.config.downloads === 'presigned' && ctx.blobs.presignedUrl) {
      // The bytes go from the bucket to the client; the link is made per request and lives as
      // long as ours do, with the name and type this route would have sent.
      const url = await ctx.blobs.presignedUrl(artifact.blobKey, {
        filename: artifact.filename,
        mime: artifact.mime,
        expiresInSeconds: LINK_TTL_SECONDS,
      });
      if (c.req.method !== 'HEAD') await recordDownload(ctx, artifact, false);
      c.header('Cache-Control', 'private, no-store');
      return c.redirect(url, 302);
    }

    const headers: Record<string, string> = {
      'Content-Type': artifact.mime,
      'Content-Disposition': contentDisposition(artifact.filename),
      'Cache-Control': 'private, no-store',
      'Accept-Ranges': 'bytes',
      'X-Content-Type-Options': 'nosniff',
      ETag: `"${artifact.sha256}"`,
    };
    const range = parseRange(c.req.header('range'), blob.size);
    if (range === 'unsatisfiable') {
      return c.json(
        {
          error: { code: 'INVALID_REQUEST', message: `The range is outside the file (${blob.size} bytes).` },
        },
        416,
        { 'Content-Range': `bytes */${blob.size}`, 'Cache-Control': 'private, no-store' },
      );
    }
    const status: 200 | 206 = range ? 206 : 200;
    const start = range?.start ?? 0;
    const end = range?.end ?? blob.size - 1;
    headers['Content-Length'] = String(blob.size === 0 ? 0 : end - start + 1);
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${blob.size}`;
    if (c.req.method === 'HEAD') return c.body(null, status, headers);
    if (start === 0) await recordDownload(ctx, artifact, range !== undefined);
    if (blob.size === 0) return c.body(null, status, headers);
    const stream = Readable.toWeb(
      await ctx.blobs.openRead(artifact.blobKey, { start, end }),
    ) as ReadableStream<Uint8Array>;
    return c.body(stream, status, headers);
  };
  app.get('/files/:opaque', serveFile);
}

async function recordDownload(ctx: ServerContext, artifact: ArtifactRecord, partial: boolean): Promise<void> {
  await ctx.store.addEvent(artifact.requestId, {
    at: Date.now(),
    kind: 'downloaded',
    message: `Artifact ${artifact.name} downloaded${partial ? ' (partial)' : ''}.`,
  });
}

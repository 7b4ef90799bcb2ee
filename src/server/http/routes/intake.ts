import type { Context, Hono, MiddlewareHandler } from 'hono';
import { detectFile } from '../../../core/detect-file.js';
import { certificateUrl } from '../../../core/sign-certificate.js';
import { stampPictureUrl } from '../../../core/stamp-picture.js';
import { findPlan, submitConversion } from '../../../core/submit-conversion.js';
import { submitMerge } from '../../../core/submit-merge.js';
import { FileconvError } from '../../../errors/index.js';
import {
  checkContentLength,
  fileKeyOf,
  type ParsedUpload,
  receiveUpload,
  type UploadedFile,
} from '../../../intake/upload.js';
import { MAX_MERGE_INPUTS } from '../../../run/merge-limits.js';
import { newRequestId } from '../../access/tokens.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { incomingOf } from '../incoming.js';
import { recipeOf, withRecipeTarget } from '../recipe-runs.js';
import { parseConvertMeta } from '../schemas/meta.js';
import { fetchSourceUrl } from '../source-url.js';
import { baseUrl, inputsView, requestView } from '../views.js';
import { awaitEnd, MAX_SUBMIT_WAIT_SECONDS, waitMs } from '../wait.js';
import { checkQueueRoom, meteringOf, writeGate } from '../writes.js';

async function readUpload(
  ctx: ServerContext,
  c: Parameters<MiddlewareHandler<AppEnv>>[0],
  key: string,
  maxFiles = 1,
  onMeta?: (meta: { value: string; mimeType: string }) => Promise<void>,
): Promise<ParsedUpload> {
  const incoming = incomingOf(c);
  const tooBig = checkContentLength(incoming, ctx.config.maxUpload);
  if (tooBig) throw tooBig;
  const upload = await receiveUpload(
    incoming,
    ctx.blobs,
    key,
    ctx.config.maxUpload,
    ctx.config.uploadPace,
    maxFiles,
    onMeta,
  );
  for (const file of upload.files) ctx.metrics.receivedFile(file.size);
  return upload;
}

/**
 * Fetches meta.source_urls in order, each as source_url is (SSRF checks, the size cap), the cap
 * counting all of them together. `keep` learns each stored key at once, so a refusal deletes them.
 */
async function fetchSources(
  ctx: ServerContext,
  urls: readonly string[],
  inputKey: string,
  signal: AbortSignal,
  keep: (key: string) => void,
): Promise<UploadedFile[]> {
  const files: UploadedFile[] = [];
  let total = 0;
  for (const [i, url] of urls.entries()) {
    const key = fileKeyOf(inputKey, i);
    const file = await fetchSourceUrl(ctx, url, key, signal);
    keep(key);
    ctx.metrics.receivedFile(file.size);
    total += file.size;
    if (total > ctx.config.maxUpload)
      throw new FileconvError(
        'SOURCE_URL_FETCH_FAILED',
        `The files at the URLs are together larger than the limit of ${ctx.config.maxUpload} bytes.`,
      );
    files.push(file);
  }
  return files;
}

/**
 * The answer to a filed conversion: 202 while it runs, or with ?wait=N (an extension of api.md)
 * the finished request as GET /requests/{id} shows it, if it ends in time.
 */
async function answerSubmitted(
  c: Context<AppEnv>,
  ctx: ServerContext,
  id: string,
  wait: number,
  inputs?: ReturnType<typeof inputsView>,
) {
  const finished = wait > 0 ? await awaitEnd(ctx, id, wait, c.req.raw.signal) : undefined;
  if (finished && finished.status !== 'running') {
    c.header('Cache-Control', 'no-store');
    return c.json(requestView(finished, await ctx.store.artifacts(id), baseUrl(c, ctx.config)));
  }
  return c.json({ request_id: id, status: 'running' as const, ...(inputs ? { inputs } : {}) }, 202);
}

/**
 * What a meta part sent before the file refuses at once, so a client learns it before sending the
 * rest: an option this machine cannot honour (an OCR language not installed). The rest of meta is
 * read, as before, once the whole request is in.
 */
async function checkEarly(ctx: ServerContext, part: { value: string; mimeType: string }): Promise<void> {
  let meta: ReturnType<typeof parseConvertMeta>;
  try {
    meta = parseConvertMeta(part);
  } catch {
    return;
  }
  if (
    meta.conversion === undefined ||
    meta.options === undefined ||
    meta.sourceUrls !== undefined ||
    meta.recipe !== undefined
  )
    return;
  const plan = findPlan((await ctx.engine.catalog()).plans, meta.conversion);
  if (plan) await ctx.engine.checkMachineOptions?.(plan, meta.options);
}

export function registerIntakeRoutes(app: Hono<AppEnv>, ctx: ServerContext): void {
  const { blobs } = ctx;

  app.post('/api/public/detect', writeGate(ctx, 'detect'), async (c) => {
    const id = newRequestId();
    const received = Date.now();
    const upload = await readUpload(ctx, c, `inputs/${id}`);
    const file = upload.file;
    try {
      // A missing file is the intake failure whatever else came with it (decisions.md: 422).
      if (!file)
        throw new FileconvError(
          'INTAKE_FAILED',
          'The file part is missing: send the file in a part named "file".',
        );
      const unexpected = [...upload.fields.keys()].filter((k) => k !== 'declared');
      if (unexpected.length > 0)
        throw new FileconvError(
          'INVALID_REQUEST',
          `Unknown part "${unexpected[0]!.slice(0, 40)}"; detect takes "file" and an optional "declared".`,
        );
      if (file.size === 0) throw new FileconvError('INTAKE_FAILED', 'The file part is empty.');
      const report = await detectFile(ctx, {
        id,
        receivedAt: received,
        input: file,
        declared: upload.fields.get('declared')?.value,
        ownerHash: c.get('ownerHash'),
        metering: meteringOf(c, ctx),
      });
      return c.json({ request_id: id, status: 'succeeded', report });
    } finally {
      if (file) await blobs.delete(file.key).catch(() => {});
    }
  });

  app.post('/api/public/convert', writeGate(ctx, 'convert'), async (c) => {
    await checkQueueRoom(ctx);
    // Checked before the body is read, so a bad wait costs the client no upload.
    const wait = waitMs(c.req.query('wait'), MAX_SUBMIT_WAIT_SECONDS);
    const id = newRequestId();
    const inputKey = `inputs/${id}`;
    const received = Date.now();
    const upload = await readUpload(ctx, c, inputKey, MAX_MERGE_INPUTS, (m) => checkEarly(ctx, m));
    // The stored inputs this handler still owns (deleted if it ends before a submission takes them).
    const stored = new Set(upload.files.map((f) => f.key));
    try {
      const meta = parseConvertMeta(upload.fields.get('meta'));
      const extra = [...upload.fields.keys()].filter((k) => k !== 'meta');
      if (extra.length > 0)
        throw new FileconvError(
          'INVALID_REQUEST',
          `Unknown part "${extra[0]!.slice(0, 40)}"; convert takes "meta", "file", "stamp" and "certificate".`,
        );
      const webhook = meta.webhook;
      const inputCount = meta.sourceUrls?.length ?? Math.max(upload.files.length, 1);
      // A recipe gives the target and the options under the run's own (docs/api.md, "Recipes").
      const run =
        meta.recipe === undefined
          ? meta
          : withRecipeTarget(meta, await recipeOf(ctx, meta.recipe, c.get('ownerHash')), inputCount);
      // What every submission carries besides its inputs.
      const submission = {
        id,
        receivedAt: received,
        conversion: run.conversion,
        to: run.to,
        // A `stamp` part is the picture of the option stamp_image, a `certificate` part the
        // PKCS#12 file of sign_certificate (docs/operations.md).
        options:
          upload.stamp || upload.certificate
            ? {
                ...(run.options as object | undefined),
                ...(upload.stamp && {
                  stamp_image: stampPictureUrl(upload.stamp.bytes, upload.stamp.filename),
                }),
                ...(upload.certificate && { sign_certificate: certificateUrl(upload.certificate.bytes) }),
              }
            : run.options,
        ownerHash: c.get('ownerHash'),
        metering: meteringOf(c, ctx),
        webhook: webhook && {
          check: () => ctx.webhooks.checkTarget(webhook, c.req.raw.signal),
          register: (requestId: string) => ctx.webhooks.register(requestId, webhook, baseUrl(c, ctx.config)),
        },
      };
      if (upload.files.length > 1 || meta.sourceUrls !== undefined) {
        if (meta.sourceUrl !== undefined || (meta.sourceUrls && upload.files.length > 0))
          throw new FileconvError(
            'INVALID_REQUEST',
            'Send the inputs either as file parts or as meta.source_urls, and not with meta.source_url.',
          );
        const inputs =
          meta.sourceUrls === undefined
            ? upload.files
            : await fetchSources(ctx, meta.sourceUrls, inputKey, c.req.raw.signal, (k) => stored.add(k));
        // From here the stored inputs are the submission's: it deletes them when the request is refused.
        stored.clear();
        const merged = await submitMerge(ctx, { ...submission, inputs });
        return answerSubmitted(c, ctx, id, wait, inputsView(merged.inputs));
      }
      let file = upload.file;
      if (meta.sourceUrl !== undefined) {
        if (file)
          throw new FileconvError('INVALID_REQUEST', 'Send either a file part or meta.source_url, not both.');
        file = await fetchSourceUrl(ctx, meta.sourceUrl, inputKey, c.req.raw.signal);
        ctx.metrics.receivedFile(file.size);
        stored.add(inputKey);
      }
      if (!file)
        throw new FileconvError(
          'INTAKE_FAILED',
          'The file part is missing: send the file in a part named "file" (or meta.source_url).',
        );
      if (file.size === 0) throw new FileconvError('INTAKE_FAILED', 'The file part is empty.');
      // With a recipe, the source format of an upload is found from its bytes, as a source_url's is.
      if (
        meta.conversion === undefined &&
        meta.recipe === undefined &&
        (meta.sourceUrl === undefined || meta.to === undefined)
      ) {
        throw new FileconvError(
          'INVALID_REQUEST',
          'meta.conversion is required (like "docx-pdf"); a source_url may give "to" instead.',
        );
      }
      // From here the stored input is the submission's: it deletes it when the request is refused.
      stored.clear();
      await submitConversion(ctx, { ...submission, input: file });
      return answerSubmitted(c, ctx, id, wait);
    } finally {
      for (const key of stored) await blobs.delete(key).catch(() => {});
    }
  });
}

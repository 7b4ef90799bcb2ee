import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'hono';
import { z } from 'zod';
import { detectFile } from '../../core/detect-file.js';
import type { Recipe } from '../../core/recipes.js';
import { submitConversion } from '../../core/submit-conversion.js';
import { submitMerge } from '../../core/submit-merge.js';
import { FileconvError } from '../../errors/index.js';
import { sanitizeFilename } from '../../intake/filename.js';
import { fileKeyOf, type UploadedFile } from '../../intake/upload.js';
import {
  catalogTool,
  createMcpServer,
  declaredInput,
  defineTool,
  givenFormat,
  type Tool,
  targetOf,
  targetShape,
} from '../../mcp/index.js';
import { withRecipe } from '../../mcp/shared.js';
import { MAX_MERGE_INPUTS } from '../../run/merge-limits.js';
import { isRequestId, newRequestId, signedFileLink } from '../access/tokens.js';
import type { AppEnv, ServerContext } from '../context.js';
import { checkRecipeInputs, recipeOf } from './recipe-runs.js';
import { fetchSourceUrl } from './source-url.js';
import { baseUrl, requestView } from './views.js';
import { awaitEnd, MAX_READ_WAIT_SECONDS } from './wait.js';
import { admitWrite, checkQueueRoom, meteringOf, sentOwnerHash } from './writes.js';

const content = z.object({
  content_base64: z.base64().describe("The file's bytes, base64-encoded."),
  filename: z.string().min(1).max(255).describe('Its name; the extension is the format it claims to be.'),
});
const sourceUrl = z.url({ protocol: /^https?$/ }).max(2048);
const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(MAX_READ_WAIT_SECONDS)
  .default(20)
  .describe(
    `Seconds to wait for the end before answering "running" (0 to ${MAX_READ_WAIT_SECONDS}, default 20).`,
  );

/** One file of a tool call as a stored input: its bytes (under the upload cap) or a public URL's. */
async function storeInput(
  ctx: ServerContext,
  key: string,
  given: { file?: z.output<typeof content>; url?: string },
  signal: AbortSignal,
): Promise<UploadedFile> {
  if (given.url !== undefined) {
    const fetched = await fetchSourceUrl(ctx, given.url, key, signal);
    ctx.metrics.receivedFile(fetched.size);
    return fetched;
  }
  const bytes = Buffer.from(given.file!.content_base64, 'base64');
  if (bytes.length > ctx.config.maxUpload)
    throw new FileconvError(
      'INTAKE_FAILED',
      `The file is larger than the limit of ${ctx.config.maxUpload} bytes.`,
    );
  if (bytes.length === 0) throw new FileconvError('INTAKE_FAILED', 'The file is empty.');
  await ctx.scratch.withDir('mcp', async (dir) => {
    const path = join(dir, 'input');
    await writeFile(path, bytes);
    await ctx.blobs.putFile(key, path);
  });
  ctx.metrics.receivedFile(bytes.length);
  const filename = sanitizeFilename(given.file!.filename);
  return { key, filename, size: bytes.length, contentType: 'application/octet-stream' };
}

/** A request as GET /requests/{id} shows it, each artifact's download a signed link (1 hour). */
async function statusOf(ctx: ServerContext, base: string, id: string, waitMs: number, signal: AbortSignal) {
  const r = isRequestId(id) ? await awaitEnd(ctx, id, waitMs, signal) : undefined;
  if (!r) throw new FileconvError('REQUEST_NOT_FOUND');
  const view = requestView(r, await ctx.store.artifacts(r.id), base);
  const artifacts = view.artifacts?.map((a) => {
    if (a.expired) return a;
    const link = signedFileLink(ctx.signer, base, r.id, a.name);
    return { ...a, download: link.url, download_expires_at: new Date(link.expiresAt).toISOString() };
  });
  return { ...view, ...(artifacts ? { artifacts } : {}) };
}

/**
 * A convert call's recipe: a name is a recipe saved under the X-Owner-Token sent with the HTTP
 * request to /mcp (POST /api/public/recipes), an object a recipe given whole, checked as a save is.
 */
async function mcpRecipe(
  c: Context<AppEnv>,
  ctx: ServerContext,
  given: string | Record<string, unknown>,
): Promise<Recipe> {
  if (typeof given !== 'string') return recipeOf(ctx, given, undefined);
  const ownerHash = sentOwnerHash(c);
  if (ownerHash === undefined)
    throw new FileconvError(
      'INVALID_REQUEST',
      `A recipe given by name (${JSON.stringify(given.slice(0, 64))}) is one saved under an owner token: send its X-Owner-Token header with the request to /mcp, or give the recipe itself.`,
    );
  return recipeOf(ctx, given, ownerHash);
}

/**
 * The MCP tools of `fileconv serve` at /mcp, for the caller of one HTTP request: files by upload
 * (base64) or public URL, under the caller's key and quotas, through the same use cases as the
 * API's routes (src/core); results as signed links.
 */
async function httpTools(c: Context<AppEnv>, ctx: ServerContext): Promise<Tool[]> {
  const base = baseUrl(c, ctx.config);

  const detect = defineTool({
    name: 'detect',
    title: 'Identify a file',
    description:
      'What a file really is, from its content: format, media type, confidence, and whether that matches the format its name (or declared) claims. Give the file as file (base64) or source_url.',
    input: z.object({
      file: content.optional(),
      source_url: sourceUrl
        .optional()
        .describe('A public http(s) URL to fetch the file from, instead of file.'),
      declared: declaredInput,
    }),
    readOnly: true,
    async run(args, signal) {
      if ((args.file === undefined) === (args.source_url === undefined))
        throw new FileconvError('INVALID_REQUEST', 'Give the file as file (base64) or as source_url.');
      const declared = givenFormat(args.declared);
      await admitWrite(c, ctx, 'detect');
      const id = newRequestId();
      const receivedAt = Date.now();
      const input = await storeInput(ctx, `inputs/${id}`, { file: args.file, url: args.source_url }, signal);
      const report = await detectFile(ctx, {
        id,
        receivedAt,
        input,
        declared,
        // Filed under the caller's X-Owner-Token when one is sent, so it shows in that token's recent list.
        ownerHash: sentOwnerHash(c),
        metering: meteringOf(c, ctx),
      });
      return { request_id: id, status: 'succeeded', report };
    },
  });

  const convert = defineTool({
    name: 'convert',
    title: 'Convert files',
    description:
      'Converts a file (file as base64, or source_url) to another format, or merges several (files or source_urls, in order) into one. Operations (pages, rotate, compress, ocr, password...) are options. Waits up to wait_seconds; the answer has the artifacts with signed download links (valid 1 hour, kept 24 hours), or status "running" and a request_id for the status tool.',
    input: z.object({
      file: content.optional(),
      source_url: sourceUrl
        .optional()
        .describe('A public http(s) URL to fetch the file from, instead of file.'),
      files: z
        .array(content)
        .min(2)
        .max(MAX_MERGE_INPUTS)
        .optional()
        .describe('Files to merge into one, in order.'),
      source_urls: z
        .array(sourceUrl)
        .min(2)
        .max(MAX_MERGE_INPUTS)
        .optional()
        .describe('URLs of files to merge.'),
      ...(await targetShape()),
      wait_seconds: waitSeconds,
    }),
    async run(args, signal) {
      const given = [args.file, args.source_url, args.files, args.source_urls].filter((g) => g !== undefined);
      if (given.length !== 1)
        throw new FileconvError(
          'INVALID_REQUEST',
          'Give exactly one of file, source_url, files or source_urls.',
        );
      const recipe = args.recipe === undefined ? undefined : await mcpRecipe(c, ctx, args.recipe);
      if (recipe) checkRecipeInputs(recipe, (args.files ?? args.source_urls)?.length ?? 1);
      const run = withRecipe(
        { ...args, options: args.options as Record<string, unknown> | undefined },
        recipe,
      );
      const target = targetOf(run);
      await admitWrite(c, ctx, 'convert');
      await checkQueueRoom(ctx);
      const id = newRequestId();
      const receivedAt = Date.now();
      const submission = {
        id,
        receivedAt,
        ...target,
        options: run.options,
        // Filed under the caller's X-Owner-Token when one is sent, so it shows in that token's recent list.
        ownerHash: sentOwnerHash(c),
        metering: meteringOf(c, ctx),
      };
      const many = args.files ?? args.source_urls;
      // Inputs stored so far: deleted here if a later one fails, else the submission's to keep or delete.
      const stored: UploadedFile[] = [];
      try {
        if (many) {
          for (const [i, one] of many.entries()) {
            const key = fileKeyOf(`inputs/${id}`, i);
            const given = typeof one === 'string' ? { url: one } : { file: one };
            stored.push(await storeInput(ctx, key, given, signal));
          }
        } else {
          stored.push(
            await storeInput(ctx, `inputs/${id}`, { file: args.file, url: args.source_url }, signal),
          );
        }
      } catch (e) {
        for (const s of stored) await ctx.blobs.delete(s.key).catch(() => {});
        throw e;
      }
      if (many) await submitMerge(ctx, { ...submission, inputs: stored });
      else await submitConversion(ctx, { ...submission, input: stored[0]! });
      return statusOf(ctx, base, id, args.wait_seconds * 1000, signal);
    },
  });

  const status = defineTool({
    name: 'status',
    title: 'A request and its results',
    description:
      'A conversion request as GET /api/public/requests/{id} shows it: status, progress, error, and the artifacts with signed download links. Waits up to wait_seconds while it runs.',
    input: z.object({
      request_id: z.string().min(1).max(64).describe('The request_id convert answered.'),
      wait_seconds: waitSeconds,
    }),
    readOnly: true,
    run: (args, signal) => statusOf(ctx, base, args.request_id, args.wait_seconds * 1000, signal),
  });

  return [detect, convert, catalogTool(async () => (await ctx.engine.catalog()).plans), status];
}

/** Room in a request body for the JSON around a file: the largest upload, base64-encoded. */
const JSON_ROOM = 1024 * 1024;

/**
 * Answers one POST /mcp. Stateless: every HTTP request gets its own server with the caller's
 * tools, answered as one JSON body, so any node of several answers any call.
 */
export async function answerMcp(c: Context<AppEnv>, ctx: ServerContext): Promise<Response> {
  const server = createMcpServer(await httpTools(c, ctx), ctx.log);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: Math.ceil(ctx.config.maxUpload / 3) * 4 + JSON_ROOM,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw);
  } finally {
    await server.close();
  }
}

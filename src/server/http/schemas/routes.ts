import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { recipeSchema } from '../../../core/recipes.js';
import { type ErrorCode, HTTP_STATUS } from '../../../errors/index.js';
import { MAX_MERGE_INPUTS } from '../../../run/merge-limits.js';
import { MAX_READ_WAIT_SECONDS, MAX_SUBMIT_WAIT_SECONDS } from '../wait.js';
import { convertMetaFields } from './meta.js';
import { ownerTokenSchema, recentLimitSchema, signedLinkQuerySchema, waitQuerySchema } from './query.js';
import { oneRecipeSchema, recipeListSchema, recipeNameParam, recipeOwnerHeader } from './recipes.js';
import {
  catalogSchema,
  conversionsSchema,
  convertAcceptedSchema,
  detectAnswerSchema,
  errorBodySchema,
  healthSchema,
  readySchema,
  recentSchema,
  requestSchema,
  statsSchema,
  timelineSchema,
} from './responses.js';

/**
 * Every route the app serves, as OpenAPI route descriptions over the same schemas the handlers
 * validate with. Paths use OpenAPI's `{param}`; test/server/openapi.test.ts checks that this list
 * and the app's routes are the same.
 */

/** Statuses besides HTTP_STATUS's: an upload over the size limit is 413, one too slow 408. */
const EXTRA_STATUSES: Partial<Record<ErrorCode, number[]>> = { INTAKE_FAILED: [413, 408] };
/** Any route may answer these: a refused Bearer key, and a failure of the server itself. */
const ALWAYS: ErrorCode[] = ['INVALID_API_KEY', 'INTERNAL_ERROR'];
const WRITES: ErrorCode[] = [
  'INVALID_REQUEST',
  'INTAKE_FAILED',
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'CONVERT_API_UNAVAILABLE',
  'INSUFFICIENT_STORAGE',
];

/** The error answers of a route, one per status, each listing the codes it may carry. */
function errors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, ...ALWAYS]) {
    for (const status of [HTTP_STATUS[code], ...(EXTRA_STATUSES[code] ?? [])]) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.join(', '),
        content: { 'application/json': { schema: errorBodySchema(list) } },
      },
    ]),
  );
}

const json = <S extends z.ZodType>(schema: S, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const body = (type: string, description: string, format?: string) => ({
  description,
  content: { [type]: { schema: z.string().meta(format ? { format } : {}) } },
});
const binary = () =>
  z.string().meta({ format: 'binary', description: 'The file, as a multipart file part.' });

const requestIdParam = z.object({
  id: z.string().meta({ description: 'The request_id.', example: '3fZk8tq2Wc9JbXyPz1Lm0A' }),
});
const noStore = { 'Cache-Control': { schema: { type: 'string' as const }, description: 'no-store' } };

/**
 * The convert meta as clients write it, with every option some engine declares (`options`: which
 * conversion takes which is in the catalog's keys and docs/conversions.md).
 */
function convertMetaDocument(options: z.ZodType) {
  return convertMetaFields
    .extend({
      options: options.optional(),
      recipe: z.union([recipeNameParam.shape.name, recipeSchema]).optional().meta({
        description:
          "A recipe: the name of one saved under the request's X-Owner-Token, or a recipe itself. Its target and options are used; meta.options are added over them.",
      }),
    })
    .meta({ id: 'ConvertMeta' });
}

/** The API's routes for the OpenAPI document, with the options schema of the engines' declarations. */
export const apiRoutes = (options: z.ZodType) => [
  createRoute({
    method: 'post',
    path: '/api/public/detect',
    tags: ['convert'],
    summary: 'Identify a file and say whether it is what it is declared as',
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              file: binary(),
              declared: z.string().optional().meta({ description: 'A format id, alias or extension.' }),
            }),
          },
        },
      },
    },
    responses: { 200: json(detectAnswerSchema, 'The detect report (within 20 s).'), ...errors(...WRITES) },
  }),
  createRoute({
    method: 'post',
    path: '/api/public/convert',
    tags: ['convert'],
    summary: 'Submit a conversion of an uploaded file or of a source URL',
    request: {
      query: z.object({ wait: waitQuerySchema(MAX_SUBMIT_WAIT_SECONDS) }),
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              meta: convertMetaDocument(options),
              file: z
                .union([binary(), z.array(binary()).max(MAX_MERGE_INPUTS)])
                .optional()
                .meta({
                  description: `The file; or several "file" parts, in order, merged into one PDF (at most ${MAX_MERGE_INPUTS}, together within the upload limit).`,
                }),
              stamp: binary().optional().meta({
                description:
                  'A PNG, JPEG or SVG picture (at most 1 MiB, typed by its file name) laid on every page of the PDF: the option stamp_image.',
              }),
              certificate: binary().optional().meta({
                description:
                  'A PKCS#12 file (.p12, .pfx; at most 64 KiB) whose key signs the PDF: the option sign_certificate, with sign_password in meta.options. Kept sealed like a password.',
              }),
            }),
            encoding: { meta: { contentType: 'application/json' } },
          },
        },
      },
    },
    responses: {
      200: json(requestSchema, 'With ?wait=N: the finished request, when it ended in time.'),
      202: json(convertAcceptedSchema, 'Accepted; poll the request until it is no longer running.'),
      ...errors(
        ...WRITES,
        'INVALID_SOURCE_URL',
        'SOURCE_URL_BLOCKED',
        'SOURCE_URL_FETCH_FAILED',
        'UNSUPPORTED_CONVERSION',
        'FORMAT_MISMATCH',
      ),
    },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/requests/recent',
    tags: ['requests'],
    summary: "This device's recent requests, newest first",
    request: {
      headers: z.object({ 'x-owner-token': ownerTokenSchema }),
      query: z.object({ limit: recentLimitSchema }),
    },
    responses: {
      200: json(recentSchema, 'The requests filed under the owner token.'),
      ...errors('INVALID_REQUEST'),
    },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/requests/{id}',
    tags: ['requests'],
    summary: 'A request: status, progress, artifacts or error',
    request: { params: requestIdParam, query: z.object({ wait: waitQuerySchema(MAX_READ_WAIT_SECONDS) }) },
    responses: {
      200: { ...json(requestSchema, 'The request.'), headers: noStore },
      ...errors('REQUEST_NOT_FOUND', 'INVALID_REQUEST'),
    },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/requests/{id}/artifacts/{name}',
    tags: ['requests'],
    summary: 'Download an artifact: a redirect to a signed link valid for one hour',
    request: {
      params: requestIdParam.extend({
        name: z.string().meta({ description: 'The artifact name.', example: 'pdf' }),
      }),
    },
    responses: {
      302: {
        description: 'Redirect to /files/{opaque}?expires=...&signature=...',
        headers: { Location: { schema: { type: 'string', format: 'uri' }, required: true } },
      },
      ...errors('REQUEST_NOT_FOUND', 'ARTIFACT_NOT_FOUND', 'ARTIFACT_EXPIRED', 'CONVERT_FAILED'),
    },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/requests/{id}/timeline',
    tags: ['requests'],
    summary: "The request's events; lines of text with Accept: text/plain",
    request: { params: requestIdParam },
    responses: {
      200: {
        description: 'The events, oldest first.',
        content: {
          'application/json': { schema: timelineSchema },
          'text/plain': { schema: z.string() },
        },
      },
      ...errors('REQUEST_NOT_FOUND'),
    },
  }),
  createRoute({
    method: 'post',
    path: '/api/public/recipes',
    tags: ['recipes'],
    summary: 'Save a recipe (a named target and options) under the owner token, or replace one of that name',
    request: {
      headers: recipeOwnerHeader,
      body: { required: true, content: { 'application/json': { schema: recipeSchema } } },
    },
    responses: {
      200: json(oneRecipeSchema, 'Saved, replacing the recipe of that name.'),
      201: json(oneRecipeSchema, 'Saved as a new recipe.'),
      ...errors('INVALID_REQUEST', 'RATE_LIMITED'),
    },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/recipes',
    tags: ['recipes'],
    summary: "The owner token's recipes, by name",
    request: { headers: recipeOwnerHeader },
    responses: {
      200: json(recipeListSchema, 'The recipes; none without an owner token.'),
      ...errors('INVALID_REQUEST'),
    },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/recipes/{name}',
    tags: ['recipes'],
    summary: 'One recipe of the owner token',
    request: { headers: recipeOwnerHeader, params: recipeNameParam },
    responses: { 200: json(oneRecipeSchema, 'The recipe.'), ...errors('NOT_FOUND', 'INVALID_REQUEST') },
  }),
  createRoute({
    method: 'delete',
    path: '/api/public/recipes/{name}',
    tags: ['recipes'],
    summary: 'Delete a recipe of the owner token',
    request: { headers: recipeOwnerHeader, params: recipeNameParam },
    responses: {
      204: { description: 'Deleted.' },
      ...errors('NOT_FOUND', 'INVALID_REQUEST', 'RATE_LIMITED'),
    },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/stats',
    tags: ['info'],
    summary: 'Success rates of conversions, last 24 hours and all time',
    responses: { 200: json(statsSchema, 'The counts.'), ...errors() },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/conversions',
    tags: ['info'],
    summary: 'Every conversion pair this server can do',
    responses: { 200: json(conversionsSchema, 'The conversion catalog.'), ...errors() },
  }),
  createRoute({
    method: 'get',
    path: '/api/public/catalog',
    tags: ['info'],
    summary: 'The build manifest: engines, and each key with its family, lossiness and steps',
    responses: { 200: json(catalogSchema, 'The build manifest.'), ...errors() },
  }),
  createRoute({
    method: 'get',
    path: '/files/{opaque}',
    tags: ['requests'],
    summary: 'A signed download link (from the artifact path); supports Range',
    request: {
      params: z.object({ opaque: z.string().meta({ description: 'Which artifact, opaque.' }) }),
      query: signedLinkQuerySchema,
    },
    responses: {
      200: body('*/*', "The file, with the artifact's own Content-Type.", 'binary'),
      206: body('*/*', 'The requested byte range.', 'binary'),
      416: json(errorBodySchema(['INVALID_REQUEST']), 'The range is outside the file.'),
      ...errors('INVALID_SIGNATURE', 'LINK_EXPIRED', 'ARTIFACT_NOT_FOUND', 'ARTIFACT_EXPIRED'),
    },
  }),
  createRoute({
    method: 'get',
    path: '/skill.md',
    tags: ['info'],
    summary: 'The instruction sheet for agents and scripts',
    responses: { 200: body('text/markdown', 'skill.md'), ...errors() },
  }),
  createRoute({
    method: 'get',
    path: '/openapi.json',
    tags: ['info'],
    summary: 'This document',
    responses: { 200: json(z.record(z.string(), z.unknown()), 'OpenAPI 3.1.'), ...errors() },
  }),
  createRoute({
    method: 'get',
    path: '/healthz',
    tags: ['operations'],
    summary: 'Liveness: the process answers',
    responses: { 200: json(healthSchema, 'Alive.'), ...errors() },
  }),
  createRoute({
    method: 'get',
    path: '/readyz',
    tags: ['operations'],
    summary: 'Readiness: database writable, engines installed, not shutting down',
    responses: { 200: json(readySchema, 'Ready.'), ...errors('CONVERT_API_UNAVAILABLE') },
  }),
  createRoute({
    method: 'get',
    path: '/metrics',
    tags: ['operations'],
    summary: 'Prometheus metrics (a bearer token when FILECONV_METRICS_TOKEN is set)',
    responses: {
      200: body('text/plain', 'Prometheus text exposition format 0.0.4.'),
      ...errors('METRICS_TOKEN_REQUIRED'),
    },
  }),
  createRoute({
    method: 'post',
    path: '/mcp',
    tags: ['mcp'],
    summary:
      'The MCP server (Model Context Protocol, Streamable HTTP, stateless): tools detect, convert, catalog and status for AI agents; needs an API key (docs/mcp.md)',
    security: [{ apiKey: [] }],
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
      },
    },
    responses: {
      200: json(z.record(z.string(), z.unknown()), 'A JSON-RPC answer of the MCP protocol.'),
      ...errors('API_KEY_REQUIRED'),
    },
  }),
  ...(
    [
      ['/', 'text/html', 'The web drop zone'],
      ['/index.html', 'text/html', 'The web drop zone'],
      ['/app.js', 'text/javascript', "The drop zone's script"],
      ['/style.css', 'text/css', "The drop zone's style sheet"],
    ] as const
  ).map(([path, type, summary]) =>
    createRoute({
      method: 'get',
      path,
      tags: ['web'],
      summary,
      responses: { 200: body(type, summary), ...errors() },
    }),
  ),
];

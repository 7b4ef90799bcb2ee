import { z } from 'zod';
import { FileconvError } from '../../../errors/index.js';
import { checkFetchableUrl, MAX_SOURCE_URL_LENGTH } from '../../../intake/source-url.js';
import { MAX_MERGE_INPUTS } from '../../../run/merge-limits.js';
import { parseOrThrow } from './issues.js';

export const WEBHOOK_EVENTS = ['succeeded', 'failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const EVENTS_RULE = { error: 'must be a non-empty list of "succeeded" and "failed"' };
const URL_RULE = { error: 'must be an absolute http(s) URL' };

/** The shape rules of a fetchable URL (scheme, no credentials, a host), as source URLs have them. */
function fetchableUrl(url: string, ctx: z.RefinementCtx): void {
  try {
    checkFetchableUrl(new URL(url), 'INVALID_SOURCE_URL');
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message.replace(/^source_url /, '') });
  }
}

/**
 * meta.webhook: where to POST the request when it ends, and for which outcomes (both by default).
 * Where the URL may point (public addresses only) is checked separately, when it is resolved.
 */
export const webhookSchema = z
  .strictObject(
    {
      url: z
        .string(URL_RULE)
        .max(MAX_SOURCE_URL_LENGTH, URL_RULE)
        .refine((u) => URL.canParse(u), { ...URL_RULE, abort: true })
        .superRefine(fetchableUrl)
        .meta({ format: 'uri', description: 'Public http(s) URL the finished request is POSTed to.' }),
      events: z
        .array(z.enum(WEBHOOK_EVENTS, EVENTS_RULE), EVENTS_RULE)
        .min(1, EVENTS_RULE)
        .optional()
        .meta({ description: 'Which outcomes are sent; both when left out.' }),
    },
    { error: 'must be an object like {"url": "https://..."}' },
  )
  .transform(({ url, events }) => ({ url, events: [...new Set(events ?? WEBHOOK_EVENTS)] }))
  .meta({
    id: 'Webhook',
    description: 'Signed webhook sent when the request ends (docs/api.md, "Webhooks").',
  });

/** meta.webhook, validated. */
export type WebhookSpec = z.output<typeof webhookSchema>;

const text = (description: string, example: string) =>
  z.string({ error: 'must be a string' }).optional().meta({ description, example });

/**
 * The fields of the convert `meta` part. Options are checked here only as an object: which
 * options apply depends on the engines of the conversion's steps, known once it is planned
 * (`planWithOptions` in src/plan/options.ts; the OpenAPI document shows every declared option).
 */
export const convertMetaFields = z.strictObject(
  {
    conversion: text('Conversion key <from>-<to> from the catalog; required for uploads.', 'docx-pdf'),
    source_url: text(
      'Public http(s) URL to fetch instead of a file part.',
      'https://example.com/report.docx',
    ),
    source_urls: z
      .array(z.string({ error: 'must be a list of URLs' }), { error: 'must be a list of URLs' })
      .min(1, { error: 'must hold at least one URL' })
      .max(MAX_MERGE_INPUTS, {
        error: `must hold at most ${MAX_MERGE_INPUTS} URLs (a merge takes at most ${MAX_MERGE_INPUTS} inputs)`,
      })
      .optional()
      .meta({
        description: `Several public http(s) URLs to fetch, in order, merged into one PDF (at most ${MAX_MERGE_INPUTS}); each is checked as source_url is.`,
        example: ['https://example.com/a.pdf', 'https://example.com/b.docx'],
      }),
    to: text(
      'Target format id: with source_url or several inputs (a merge: "pdf"), instead of conversion.',
      'pdf',
    ),
    options: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
    webhook: webhookSchema.optional(),
    // The recipe itself is checked against the engines' declarations (core/recipes.ts), not here.
    recipe: z
      .union([z.string().min(1).max(200), z.record(z.string(), z.unknown())], {
        error: 'must be the name of a saved recipe or a recipe object',
      })
      .optional(),
  },
  { error: 'must be a JSON object' },
);

/** The convert meta part: its fields, renamed to the server's camelCase. */
export const convertMetaSchema = convertMetaFields.transform((m) => ({
  conversion: m.conversion,
  sourceUrl: m.source_url,
  sourceUrls: m.source_urls,
  to: m.to,
  options: m.options,
  webhook: m.webhook,
  recipe: m.recipe,
}));

/** The convert meta part, validated. */
export type ConvertMeta = z.output<typeof convertMetaSchema>;

function bad(message: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', message);
}

/** Parses the `meta` part: JSON, then the schema (known fields only, each of the right type). */
export function parseConvertMeta(part: { value: string; mimeType: string } | undefined): ConvertMeta {
  if (!part)
    throw bad('The meta part is missing: send a part "meta" with JSON like {"conversion": "docx-pdf"}.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(part.value);
  } catch {
    throw bad('The meta part is not valid JSON.');
  }
  return parseOrThrow(convertMetaSchema, parsed, { root: 'meta', rootText: 'The meta part' });
}

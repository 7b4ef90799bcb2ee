import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../../errors/index.js';

/**
 * The JSON the API answers, as zod schemas: they make the OpenAPI document's response schemas,
 * and the view functions (views.ts) are typed against them, so a field added to an answer
 * without its schema does not compile.
 */

const isoTime = z.iso.datetime().meta({ example: '2026-01-01T12:00:00.000Z' });
const requestId = z.string().meta({ description: 'The request id.', example: '3fZk8tq2Wc9JbXyPz1Lm0A' });
const status = z.enum(['running', 'succeeded', 'failed']);
const kind = z.enum(['detect', 'convert']);

export const errorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

/** Every error: `{"error": {"code", "message"}}`, plus `reset_at` on 429, `detail` on a failed artifact. */
const errorBody = z
  .object({
    error: z.looseObject({
      code: errorCodeSchema,
      message: z.string(),
      reset_at: isoTime.optional().meta({ description: 'When the limit or quota resets (429).' }),
      detail: z
        .string()
        .optional()
        .meta({ description: "The failed request's error.code (502 on an artifact)." }),
    }),
  })
  .meta({ id: 'Error' });

/** The error body of one status, with the codes that status may carry. */
export function errorBodySchema(codes: readonly ErrorCode[]) {
  return z.intersection(
    errorBody,
    z.object({ error: z.object({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]) }) }),
  );
}

export const detectReportSchema = z
  .object({
    declared: z
      .string()
      .meta({ description: 'Format id the file was declared as (name, part or content type).' }),
    detected: z.string().meta({ description: 'Format id found from the bytes; empty when unknown.' }),
    match: z.boolean(),
    mime: z.string(),
    confidence: z.number().min(0).max(1),
    encrypted: z.literal(true).optional().meta({
      description:
        'Present when the file is password-protected (an encrypted Office, OOXML or ODF document); convert it with the option password.',
    }),
    encoding: z.string().optional().meta({
      description:
        'For text: the encoding its bytes are written in, as WHATWG names it (utf-8, utf-16le, big5, shift_jis, windows-1251...).',
    }),
    version: z.string().optional().meta({
      description:
        'The version or variant the bytes name, where engines treat it apart (Word 6.0/95, Excel 4.0 (BIFF4), encrypted OOXML).',
    }),
    encoding_source: z.enum(['bom', 'declared', 'guessed']).optional().meta({
      description:
        "For text: how the encoding was found: its byte order mark, the text's own declaration (XML declaration, HTML meta, CSS @charset, coding cookie), or a guess from its bytes. Conversions read the text in this encoding.",
    }),
    encoding_confidence: z.number().min(0).max(1).optional().meta({
      description: 'For text: how sure the encoding is, 0 to 1 (1 for a byte order mark or a declaration).',
    }),
  })
  .meta({ id: 'DetectReport' });

export const detectAnswerSchema = z
  .object({ request_id: requestId, status: z.literal('succeeded'), report: detectReportSchema })
  .meta({ id: 'DetectAnswer' });

/** The inputs of a request with several (a merge), in the order they were sent. */
export const requestInputsSchema = z
  .array(
    z.object({
      name: z.string().meta({ description: 'The file name it was sent under (sanitised).' }),
      format: z.string().meta({ description: 'Its format, as detected.', example: 'docx' }),
    }),
  )
  .meta({
    description: 'With several inputs (a merge into one PDF): each input, in the order they were sent.',
  });

export const convertAcceptedSchema = z
  .object({ request_id: requestId, status: z.literal('running'), inputs: requestInputsSchema.optional() })
  .meta({ id: 'ConvertAccepted' });

const progressSchema = z
  .object({
    percent: z.number().min(0).max(100),
    stage: z.enum(['queued', 'converting', 'storing', 'done']),
    step: z.number().int().min(0),
    steps: z.number().int().min(0),
  })
  .meta({ id: 'Progress' });

const count = z.number().int().min(0).optional();
const checksSchema = z
  .object({
    pages: count,
    images: count,
    sheets: count,
    rows: count,
    width: count,
    height: count,
    duration_s: z.number().min(0).optional(),
    frames: count,
    words: count,
    words_kept: z.number().min(0).max(1).optional(),
    source_images: count.meta({
      description:
        "The source's distinct pictures, where the target can hold pictures: fewer `images` means pictures were lost.",
    }),
  })
  .meta({
    id: 'ArtifactChecks',
    description: 'What the output holds, and how much of the source text it kept.',
  });

export const artifactSchema = z
  .object({
    name: z.string().meta({ example: 'pdf' }),
    download: z.url().optional().meta({ description: 'The artifact path; absent once expired.' }),
    expired: z.literal(true).optional(),
    format: z.string(),
    mime: z.string(),
    size: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    expires_at: isoTime,
    checks: checksSchema.optional(),
  })
  .meta({ id: 'Artifact' });

const requestErrorSchema = z
  .object({
    code: z.string().meta({ example: 'NEEDS_OCR' }),
    message: z.string(),
  })
  .meta({ description: 'Why the request failed: a detail code (NEEDS_OCR, ...) or CONVERT_FAILED.' });

export const requestSchema = z
  .object({
    request_id: requestId,
    kind,
    status,
    conversion: z.string().optional(),
    inputs: requestInputsSchema.optional(),
    created_at: isoTime,
    finished_at: isoTime.optional(),
    progress: progressSchema,
    report: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'The detect report, for detects.' }),
    artifacts: z.array(artifactSchema).optional(),
    error: requestErrorSchema.optional(),
  })
  .meta({ id: 'Request' });

export const recentSchema = z
  .object({
    requests: z.array(
      z.object({
        request_id: requestId,
        kind,
        status,
        conversion: z.string().nullable(),
        filename: z.string(),
        created_at: isoTime,
        error: requestErrorSchema.optional(),
      }),
    ),
  })
  .meta({ id: 'RecentRequests' });

export const timelineSchema = z
  .object({
    request_id: requestId,
    events: z.array(z.object({ at: isoTime, kind: z.string(), message: z.string() })),
  })
  .meta({ id: 'Timeline' });

const countsSchema = z
  .object({
    total: z.number().int().min(0),
    succeeded: z.number().int().min(0),
    failed: z.number().int().min(0),
    success_rate: z.number().min(0).max(1).nullable(),
  })
  .meta({ id: 'Counts' });

export const statsSchema = z
  .object({
    last_24h: countsSchema,
    all_time: countsSchema,
    conversions: z.array(z.object({ key: z.string(), last_24h: countsSchema, all_time: countsSchema })),
  })
  .meta({ id: 'Stats' });

export const conversionsSchema = z
  .object({
    conversions: z.array(
      z.object({
        key: z.string().meta({ example: 'docx-pdf' }),
        from: z.string(),
        to: z.string(),
        family: z.string(),
      }),
    ),
  })
  .meta({ id: 'Conversions' });

export const catalogSchema = z
  .object({
    version: z.string(),
    engines: z.array(z.object({ name: z.string(), version: z.string().nullable() })),
    keys: z.record(
      z.string(),
      z.object({
        family: z.string(),
        lossy: z.boolean(),
        steps: z.array(z.object({ from: z.string(), to: z.string(), engine: z.string() })),
        options: z.array(z.string()).meta({
          description: 'The options some step of this conversion honours (docs/conversions.md, "Options").',
          example: ['pages', 'quality'],
        }),
      }),
    ),
  })
  .meta({ id: 'Catalog' });

export const healthSchema = z.object({ status: z.literal('ok') });

export const readySchema = z.object({
  status: z.literal('ready'),
  database: z.literal('ok'),
  engines: z.number().int().min(1),
  conversions: z.number().int().min(0),
  queued: z.number().int().min(0),
});

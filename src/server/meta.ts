import { FileconvError } from '../errors/index.js';
import { parseWebhookSpec, type WebhookSpec } from './webhook-spec.js';

/** The convert meta part, validated. */
export interface ConvertMeta {
  conversion: string | undefined;
  sourceUrl: string | undefined;
  to: string | undefined;
  options: Record<string, unknown> | undefined;
  webhook: WebhookSpec | undefined;
}

const META_FIELDS = new Set(['conversion', 'source_url', 'to', 'options', 'webhook']);

function bad(message: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', message);
}

/** Parses the `meta` part: JSON object, known fields only, each of the right type. */
export function parseConvertMeta(part: { value: string; mimeType: string } | undefined): ConvertMeta {
  if (!part)
    throw bad('The meta part is missing: send a part "meta" with JSON like {"conversion": "docx-pdf"}.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(part.value);
  } catch {
    throw bad('The meta part is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw bad('The meta part must be a JSON object.');
  const meta = parsed as Record<string, unknown>;
  const unknown = Object.keys(meta).filter((k) => !META_FIELDS.has(k));
  if (unknown.length > 0)
    throw bad(
      `Unknown meta field${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}.`,
    );
  const str = (k: string): string | undefined => {
    const v = meta[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw bad(`meta.${k} must be a string.`);
    return v;
  };
  const options = meta.options;
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw bad('meta.options must be an object.');
  }
  return {
    conversion: str('conversion'),
    sourceUrl: str('source_url'),
    to: str('to'),
    options: options as Record<string, unknown> | undefined,
    webhook: meta.webhook === undefined ? undefined : parseWebhookSpec(meta.webhook),
  };
}

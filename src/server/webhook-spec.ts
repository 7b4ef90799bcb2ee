import { FileconvError } from '../errors/index.js';
import { checkFetchableUrl, MAX_SOURCE_URL_LENGTH } from '../intake/source-url.js';

export const WEBHOOK_EVENTS = ['succeeded', 'failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** meta.webhook, validated: where to POST the request when it ends, and for which outcomes. */
export interface WebhookSpec {
  url: string;
  events: WebhookEvent[];
}

function bad(message: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', message);
}

/**
 * Checks the shape of meta.webhook: `{"url": "https://...", "events": ["succeeded", "failed"]}`,
 * events optional (both by default). Where the URL may point is checked separately, against the
 * same public-address rule as source URLs.
 */
export function parseWebhookSpec(raw: unknown): WebhookSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad('meta.webhook must be an object like {"url": "https://..."}.');
  const fields = raw as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => k !== 'url' && k !== 'events');
  if (unknown.length > 0)
    throw bad(`Unknown meta.webhook field ${JSON.stringify(unknown[0]!.slice(0, 40))}.`);
  const { url, events } = fields;
  if (typeof url !== 'string' || url.length > MAX_SOURCE_URL_LENGTH || !URL.canParse(url))
    throw bad('meta.webhook.url must be an absolute http(s) URL.');
  try {
    checkFetchableUrl(new URL(url), 'INVALID_SOURCE_URL');
  } catch (e) {
    throw bad(`meta.webhook.url ${(e as Error).message.replace(/^source_url /, '')}`);
  }
  if (events === undefined) return { url, events: [...WEBHOOK_EVENTS] };
  if (
    !Array.isArray(events) ||
    events.length === 0 ||
    !events.every((e) => (WEBHOOK_EVENTS as readonly unknown[]).includes(e))
  )
    throw bad('meta.webhook.events must be a non-empty list of "succeeded" and "failed".');
  return { url, events: [...new Set(events as WebhookEvent[])] };
}

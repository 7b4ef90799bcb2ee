import type { Context } from 'hono';
import type { z } from 'zod';
import { shownText } from '../../intake/untrusted-text.js';
import type {
  ArtifactRecord,
  ConversionCounts,
  Counts,
  RequestRecord,
  TimelineEvent,
} from '../../store/types.js';
import type { ServeConfig } from '../config.js';
import type {
  artifactSchema,
  recentSchema,
  requestSchema,
  statsSchema,
  timelineSchema,
} from './schemas/responses.js';

/** What an answer holds, as its schema in the OpenAPI document describes it. */
type Answer<S extends z.ZodType> = z.input<S>;

const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** Absolute base URL for links: --public-url, else the Host header (when well formed), else the listen address. */
export function baseUrl(c: Context, config: ServeConfig): string {
  return baseUrlFor(c.req.header('host'), config);
}

/** `baseUrl` from the Host header alone, for answers made without a Hono context. */
export function baseUrlFor(host: string | undefined, config: ServeConfig): string {
  if (config.publicUrl) return config.publicUrl;
  if (host && HOST.test(host)) return `http://${host}`;
  return `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function artifactView(a: ArtifactRecord, base: string): Answer<typeof artifactSchema> {
  const download = `${base}/api/public/requests/${encodeURIComponent(a.requestId)}/artifacts/${encodeURIComponent(a.name)}`;
  return {
    name: a.name,
    ...(a.expired ? { expired: true } : { download }),
    format: a.format,
    mime: a.mime,
    size: a.size,
    sha256: a.sha256,
    expires_at: iso(a.expiresAt),
    ...(a.checks ? { checks: a.checks } : {}),
  };
}

export function requestView(
  r: RequestRecord,
  artifacts: readonly ArtifactRecord[],
  base: string,
): Answer<typeof requestSchema> {
  return {
    request_id: r.id,
    kind: r.kind,
    status: r.status,
    ...(r.conversion ? { conversion: r.conversion } : {}),
    ...(r.inputs ? { inputs: inputsView(r.inputs) } : {}),
    created_at: iso(r.createdAt),
    ...(r.finishedAt ? { finished_at: iso(r.finishedAt) } : {}),
    progress: r.progress,
    ...(r.report ? { report: r.report } : {}),
    ...(r.status === 'succeeded' && r.kind === 'convert'
      ? { artifacts: artifacts.map((a) => artifactView(a, base)) }
      : {}),
    ...(r.error ? { error: errorView(r.error) } : {}),
  };
}

/** A merge's inputs as shown: names and formats in order, never their blob keys. */
export function inputsView(inputs: readonly { filename: string; format: string }[]) {
  return inputs.map((i) => ({ name: shownText(i.filename), format: i.format }));
}

/** A request's error as shown: its message may quote an engine's words about the input. */
function errorView(error: NonNullable<RequestRecord['error']>): NonNullable<RequestRecord['error']> {
  return { ...error, message: shownText(error.message) };
}

export function recentView(r: RequestRecord): Answer<typeof recentSchema>['requests'][number] {
  return {
    request_id: r.id,
    kind: r.kind,
    status: r.status,
    conversion: r.conversion ?? null,
    filename: shownText(r.filename),
    created_at: iso(r.createdAt),
    ...(r.error ? { error: errorView(r.error) } : {}),
  };
}

export function timelineView(id: string, events: readonly TimelineEvent[]): Answer<typeof timelineSchema> {
  return {
    request_id: id,
    events: events.map((e) => ({ at: iso(e.at), kind: e.kind, message: shownText(e.message) })),
  };
}

export function timelineText(events: readonly TimelineEvent[]): string {
  return events.map((e) => `${iso(e.at)}  ${e.kind.padEnd(10)}  ${shownText(e.message)}`).join('\n') + '\n';
}

function countsView(c: Counts) {
  return { ...c, success_rate: c.total === 0 ? null : c.succeeded / c.total };
}

function sum(list: readonly Counts[]): Counts {
  return list.reduce(
    (a, c) => ({
      total: a.total + c.total,
      succeeded: a.succeeded + c.succeeded,
      failed: a.failed + c.failed,
    }),
    {
      total: 0,
      succeeded: 0,
      failed: 0,
    },
  );
}

export function statsView(rows: readonly ConversionCounts[]): Answer<typeof statsSchema> {
  return {
    last_24h: countsView(sum(rows.map((r) => r.lastDay))),
    all_time: countsView(sum(rows.map((r) => r.allTime))),
    conversions: rows.map((r) => ({
      key: r.key,
      last_24h: countsView(r.lastDay),
      all_time: countsView(r.allTime),
    })),
  };
}

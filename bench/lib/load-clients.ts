/**
 * The client side of the load test: clients that loop over detect, two conversions, polls and
 * downloads against one API, timing every call by kind and counting the answers that were not a
 * success by status and code.
 */
import { request } from 'undici';
import { MULTIPART_TYPE, multipartBody } from './serve.js';

/** Refusals the server is designed to give under load; clients back off and go on. */
export const DESIGNED = new Set([429, 503]);

/**
 * What a timed call was. A plain poll (`GET /api/public/requests/{id}`, no wait) is told apart by
 * the state it answered, so its latency is that of a poll answer; the long-poll (`?wait=30`)
 * includes the wait for the conversion.
 */
export const KINDS = [
  'detect',
  'convert csv-json',
  'convert png-webp',
  'poll (running)',
  'poll (finished)',
  'long-poll',
  'download',
] as const;
export type Kind = (typeof KINDS)[number];

/** Latencies and problems of one run. */
export class LoadStats {
  readonly latencies = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  readonly problems = new Map<string, number>();
  handled = 0;
  succeeded = 0;

  record(kind: Kind, ms: number): void {
    this.handled++;
    this.latencies.get(kind)!.push(ms);
  }

  problem(what: string): void {
    this.problems.set(what, (this.problems.get(what) ?? 0) + 1);
  }

  /** p50 and p99 of one kind in ms, and how many calls there were. */
  summary(kind: Kind): { n: number; p50: number; p99: number } {
    const sorted = [...this.latencies.get(kind)!].sort((a, b) => a - b);
    return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  }

  /** Problems other than the designed refusals: any of them fails the run. */
  unexpected(): string[] {
    return [...this.problems.keys()].filter((what) => !DESIGNED.has(Number(what.split(' ')[0])));
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  body: Buffer;
  location?: string;
}

/** One HTTP call, timed under `kind` (or the kind `kindOf` reads from the answer). */
async function call(
  stats: LoadStats,
  kind: Kind | ((answer: Answer) => Kind),
  url: string,
  init: Parameters<typeof request>[1],
): Promise<Answer> {
  const t0 = performance.now();
  const res = await request(url, init);
  const body = Buffer.from(await res.body.arrayBuffer());
  const ms = performance.now() - t0;
  const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
  const answer = { status: res.statusCode, body, location };
  const named = typeof kind === 'function' ? kind(answer) : kind;
  stats.record(named, ms);
  if (res.statusCode >= 400) {
    let error: { code?: string; message?: string } | undefined;
    try {
      error = (JSON.parse(body.toString('utf8')) as { error?: typeof error }).error;
    } catch {}
    const what = `${res.statusCode} ${error?.code ?? ''}`.trim();
    if (!stats.problems.has(what))
      console.log(`  first ${what} (${named}): ${error?.message ?? body.toString('utf8').slice(0, 200)}`);
    stats.problem(what);
  }
  return answer;
}

/** A multipart body of a small input (and its meta), in one buffer: what is measured is the service. */
async function upload(path: string, filename: string, conversion?: string) {
  const parts = [
    ...(conversion
      ? [{ name: 'meta', body: JSON.stringify({ conversion }), contentType: 'application/json' }]
      : []),
    { name: 'file', filename, contentType: 'application/octet-stream', body: { path } },
  ];
  const chunks: Buffer[] = [];
  for await (const c of multipartBody(parts)) chunks.push(Buffer.from(c));
  return {
    method: 'POST' as const,
    headers: { 'content-type': MULTIPART_TYPE },
    body: Buffer.concat(chunks),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the request view is read field by field.
type RequestView = any;

const view = (answer: Answer): RequestView => JSON.parse(answer.body.toString('utf8'));
const pollKind = (answer: Answer): Kind =>
  answer.status === 200 && view(answer).status === 'running' ? 'poll (running)' : 'poll (finished)';

/**
 * Submits one conversion, polls it once right away (most often still running), long-polls it to
 * its final state, polls it once more (finished) and downloads every artifact through its 302.
 */
async function convertOnce(
  stats: LoadStats,
  base: string,
  conversion: 'csv-json' | 'png-webp',
  input: string,
): Promise<void> {
  const body = await upload(input, conversion === 'csv-json' ? 'table.csv' : 'small.png', conversion);
  const sent = await call(stats, `convert ${conversion}`, `${base}/api/public/convert`, body);
  if (sent.status !== 202) {
    if (DESIGNED.has(sent.status)) await sleep(200);
    return;
  }
  const id = (view(sent) as { request_id: string }).request_id;
  const poll = `${base}/api/public/requests/${id}`;
  let state = view(await call(stats, pollKind, poll, {}));
  while (state.status === 'running') state = view(await call(stats, 'long-poll', `${poll}?wait=30`, {}));
  state = view(await call(stats, pollKind, poll, {}));
  if (state.status !== 'succeeded') {
    stats.problem(`conversion ${state.status} ${state.error?.code ?? ''}`.trim());
    return;
  }
  stats.succeeded++;
  for (const artifact of state.artifacts as { download: string }[]) {
    const redirect = await call(stats, 'download', new URL(artifact.download, base).href, {});
    if (redirect.status !== 302 || !redirect.location) {
      stats.problem(`artifact ${redirect.status} without a redirect`);
      continue;
    }
    const file = await call(stats, 'download', new URL(redirect.location, base).href, {});
    if (file.status !== 200 || file.body.length === 0) stats.problem(`download ${file.status} empty`);
  }
}

export interface Inputs {
  csv: string;
  png: string;
}

/** One round of a client: detect, convert csv->json, convert png->webp. */
async function round(stats: LoadStats, base: string, inputs: Inputs): Promise<void> {
  const detect = await upload(inputs.csv, 'table.csv');
  const detected = await call(stats, 'detect', `${base}/api/public/detect`, detect);
  if (DESIGNED.has(detected.status)) await sleep(200);
  await convertOnce(stats, base, 'csv-json', inputs.csv);
  await convertOnce(stats, base, 'png-webp', inputs.png);
}

/** One client: rounds again and again until `until`. */
export async function runClient(
  stats: LoadStats,
  base: string,
  inputs: Inputs,
  until: number,
): Promise<void> {
  while (Date.now() < until) await round(stats, base, inputs);
}

/**
 * One untimed round of every client at once: a worker process loads its engines and opens its
 * database connections on its first jobs, which would otherwise be counted as load.
 */
export async function warmUp(base: string, inputs: Inputs, clients: number): Promise<void> {
  const stats = new LoadStats();
  await Promise.all(Array.from({ length: clients }, () => round(stats, base, inputs)));
  const unexpected = stats.unexpected();
  if (unexpected.length > 0) throw new Error(`warm-up: unexpected errors: ${unexpected.join(', ')}`);
}

/**
 * Bounded load test of `fileconv serve` on loopback: N clients for M seconds, each looping
 * detect, convert (csv->json and a small png->webp), long-poll, download. Prints requests handled,
 * p50/p99 latency per kind, answers that were not a success by status and code, and the server's
 * resident memory at start and end. Only the designed refusals (429, 503) are allowed; any other
 * error, or a conversion that fails, makes the exit code non-zero. Stops by itself.
 *
 *   tsx bench/load.ts [--clients 8] [--seconds 30] [--source]   (or LOAD_CLIENTS / LOAD_SECONDS)
 *
 * The server is the built one (`npm run build` first); --source runs it from the TypeScript source
 * instead, to measure a checkout that has not been built.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { makeCsv, makePhotoPng } from './lib/inputs.js';
import {
  type Child,
  MULTIPART_TYPE,
  multipartBody,
  NO_LIMIT_FLAGS,
  procMemory,
  ROOT,
  removeDir,
  startServe,
  tempDir,
} from './lib/serve.js';

const { values } = parseArgs({
  options: { clients: { type: 'string' }, seconds: { type: 'string' }, source: { type: 'boolean' } },
});

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number above 0, got "${raw}"`);
  return n;
}

const CLIENTS = positive('clients', values.clients ?? process.env.LOAD_CLIENTS, 8);
const SECONDS = positive('seconds', values.seconds ?? process.env.LOAD_SECONDS, 30);
/** Refusals the server is designed to give under load; clients back off and go on. */
const DESIGNED = new Set([429, 503]);
/** How long after the end the last conversions may take before the run is called stuck. */
const DRAIN_MS = 120_000;

type Kind = 'detect' | 'convert csv-json' | 'convert png-webp' | 'poll' | 'download';
const latencies = new Map<Kind, number[]>();
const problems = new Map<string, number>();
let handled = 0;

function record(kind: Kind, ms: number): void {
  handled++;
  const list = latencies.get(kind) ?? [];
  list.push(ms);
  latencies.set(kind, list);
}

function problem(what: string): void {
  problems.set(what, (problems.get(what) ?? 0) + 1);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One HTTP call, timed; a non-success answer is recorded as "<status> <code>". */
async function call(
  kind: Kind,
  url: string,
  init: Parameters<typeof request>[1],
): Promise<{ status: number; body: Buffer; location?: string }> {
  const t0 = performance.now();
  const res = await request(url, init);
  const body = Buffer.from(await res.body.arrayBuffer());
  record(kind, performance.now() - t0);
  if (res.statusCode >= 400) {
    let error: { code?: string; message?: string } | undefined;
    try {
      error = (JSON.parse(body.toString('utf8')) as { error?: typeof error }).error;
    } catch {}
    const what = `${res.statusCode} ${error?.code ?? ''}`.trim();
    if (!problems.has(what) && !DESIGNED.has(res.statusCode))
      console.log(`  first ${what} (${kind}): ${error?.message ?? body.toString('utf8').slice(0, 200)}`);
    problem(what);
  }
  const location = res.headers.location;
  return { status: res.statusCode, body, location: typeof location === 'string' ? location : undefined };
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

async function convertOnce(base: string, conversion: 'csv-json' | 'png-webp', input: string): Promise<void> {
  const body = await upload(input, conversion === 'csv-json' ? 'table.csv' : 'small.png', conversion);
  const sent = await call(`convert ${conversion}`, `${base}/api/public/convert`, body);
  if (sent.status !== 202) {
    if (DESIGNED.has(sent.status)) await sleep(200);
    return;
  }
  const id = (JSON.parse(sent.body.toString('utf8')) as { request_id: string }).request_id;
  // biome-ignore lint/suspicious/noExplicitAny: the request view is read field by field.
  let view: any;
  for (;;) {
    const polled = await call('poll', `${base}/api/public/requests/${id}?wait=30`, {});
    view = JSON.parse(polled.body.toString('utf8'));
    if (view.status !== 'running') break;
  }
  if (view.status !== 'succeeded') {
    problem(`conversion ${view.status} ${view.error?.code ?? ''}`.trim());
    return;
  }
  for (const artifact of view.artifacts as { download: string }[]) {
    const redirect = await call('download', new URL(artifact.download, base).href, {});
    if (redirect.status !== 302 || !redirect.location) {
      problem(`artifact ${redirect.status} without a redirect`);
      continue;
    }
    const file = await call('download', new URL(redirect.location, base).href, {});
    if (file.status !== 200 || file.body.length === 0) problem(`download ${file.status} empty`);
  }
}

async function client(base: string, csv: string, png: string, until: number): Promise<void> {
  while (Date.now() < until) {
    const detected = await call('detect', `${base}/api/public/detect`, await upload(csv, 'table.csv'));
    if (DESIGNED.has(detected.status)) await sleep(200);
    await convertOnce(base, 'csv-json', csv);
    await convertOnce(base, 'png-webp', png);
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** `fileconv serve` from the TypeScript source through tsx, limits off, on a free loopback port. */
async function startFromSource(dataDir: string): Promise<Child> {
  const args = ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--host', '127.0.0.1'];
  args.push('--port', '0', '--data-dir', dataDir, ...NO_LIMIT_FLAGS);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, FILECONV_PORT: '', FILECONV_DATA_DIR: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`fileconv serve exited ${code}: ${output}`)));
  });
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  return { url, pid: child.pid!, stop };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function main(): Promise<number> {
  const dir = tempDir('fileconv-bench-load-');
  const csv = join(dir, 'table.csv');
  const png = join(dir, 'small.png');
  makeCsv(csv, 200);
  await makePhotoPng(png, 160, 120);
  const server = values.source
    ? await startFromSource(join(dir, 'data'))
    : await startServe(join(dir, 'data'));
  try {
    const rssStart = procMemory(server.pid, 'VmRSS');
    const started = Date.now();
    const until = started + SECONDS * 1000;
    const run = Promise.all(Array.from({ length: CLIENTS }, () => client(server.url, csv, png, until)));
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      timer = setTimeout(() => resolve('stuck'), SECONDS * 1000 + DRAIN_MS);
    });
    const outcome = await Promise.race([run, stuck]);
    clearTimeout(timer);
    if (outcome === 'stuck') {
      console.log(`load: clients still busy ${DRAIN_MS / 1000} s after the end`);
      return 1;
    }
    const elapsed = (Date.now() - started) / 1000;
    const rssEnd = procMemory(server.pid, 'VmRSS');
    const peak = procMemory(server.pid, 'VmHWM');

    console.log(
      `load: ${CLIENTS} clients for ${SECONDS} s: ${handled} requests handled in ${elapsed.toFixed(1)} s (${(handled / elapsed).toFixed(1)}/s)`,
    );
    for (const [kind, list] of latencies) {
      const sorted = [...list].sort((a, b) => a - b);
      console.log(
        `  ${kind.padEnd(17)} n=${String(sorted.length).padStart(5)}  p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms`,
      );
    }
    const errors = [...problems.entries()].map(([what, n]) => `${what}: ${n}`).join(', ');
    console.log(`  errors: ${errors || 'none'}`);
    console.log(
      `  server memory: VmRSS ${mib(rssStart)} at start, ${mib(rssEnd)} at end (peak ${mib(peak)})`,
    );
    const unexpected = [...problems.keys()].filter((what) => !DESIGNED.has(Number(what.split(' ')[0])));
    if (unexpected.length > 0) {
      console.log(`load: unexpected errors: ${unexpected.join(', ')}`);
      return 1;
    }
    return 0;
  } finally {
    await server.stop();
    removeDir(dir);
  }
}

process.exitCode = await main();

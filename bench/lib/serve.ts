/**
 * Bench helpers for the HTTP server: `fileconv serve` as a child process (so its memory and CPU
 * are its own), a bare node:http baseline child, streamed multipart bodies, and the client side of
 * a conversion (upload, long-poll, 302, download).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';

export const ROOT = join(import.meta.dirname, '..', '..');

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface Child {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Resolves with the URL the child prints. Its output is kept only until then: afterwards it is
 * read and dropped, since a server logging a line per request would otherwise make the bench
 * process (which also runs the load generator) slower and slower.
 */
function waitForUrl(child: ChildProcess, what: string): Promise<string> {
  let output = '';
  let started = false;
  const collect = (d: Buffer) => {
    if (!started) output += d.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${output}`)), 120_000);
    child.stdout!.on('data', () => {
      const m = started ? null : /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        started = true;
        output = '';
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code}: ${output}`));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
}

/** Benches measure the service, not its abuse guards: no write rate limit, quotas out of reach. */
const UNLIMITED = 'conversions=1000000000,voice=1000000000,file_checks=1000000000';
export const NO_LIMIT_FLAGS = ['--rate-limit', '0', '--quota-anon', UNLIMITED, '--quota-key', UNLIMITED];

/**
 * Waits until `GET /readyz` answers 200: the server probes its engines after it starts listening,
 * and a bench that began earlier would time (and count the memory of) the end of its start-up.
 */
async function waitReady(url: string): Promise<void> {
  const until = Date.now() + 120_000;
  for (;;) {
    const res = await request(`${url}/readyz`);
    await res.body.dump();
    if (res.statusCode === 200) return;
    if (Date.now() > until) throw new Error(`${url}/readyz still answers ${res.statusCode}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The node arguments that start the CLI: `bin/fileconv` (dist/ when it is newer than the sources,
 * else the sources), or with `source` always the TypeScript sources through tsx, to measure a
 * checkout that has not been built.
 */
function cliArgs(source: boolean): string[] {
  return source ? ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts')] : [join(ROOT, 'bin', 'fileconv')];
}

/** Starts `fileconv serve --port 0`, limits off, with a fresh data folder and the given flags; resolves once it is ready. */
export async function startServe(
  dataDir: string,
  flags: string[] = [],
  env: NodeJS.ProcessEnv = {},
  { source = false }: { source?: boolean } = {},
): Promise<Child> {
  const child = spawn(
    process.execPath,
    [
      ...cliArgs(source),
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...NO_LIMIT_FLAGS,
      ...flags,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, FILECONV_PORT: '', FILECONV_DATA_DIR: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await waitForUrl(child, 'fileconv serve');
  await waitReady(url);
  return { url, pid: child.pid!, stop: stopper(child) };
}

/** Starts `fileconv worker` on its own data folder and waits until it runs. */
export async function startWorker(
  dataDir: string,
  flags: string[],
  env: NodeJS.ProcessEnv,
  { source = false }: { source?: boolean } = {},
): Promise<Child> {
  const child = spawn(process.execPath, [...cliArgs(source), 'worker', '--data-dir', dataDir, ...flags], {
    cwd: ROOT,
    env: { ...process.env, FILECONV_DATA_DIR: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`fileconv worker did not start: ${output.join('')}`)),
      120_000,
    );
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      output.push(d.toString());
      if (output.join('').includes('fileconv worker running')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`fileconv worker exited ${code}: ${output.join('')}`)));
  });
  return { url: '', pid: child.pid!, stop: stopper(child) };
}

/** Starts a bare node:http server from `source` (which must print "listening on <url>"). */
export async function startBare(source: string, args: string[] = []): Promise<Child> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', source, '--', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await waitForUrl(child, 'baseline server');
  return { url, pid: child.pid!, stop: stopper(child) };
}

/** A field of /proc/<pid>/status in bytes (VmRSS: resident now; VmHWM: peak since the last reset). */
export function procMemory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** CPU time (user + system, all threads) a process has used so far, in seconds. */
export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name in parentheses may hold spaces; fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface StreamPart {
  name: string;
  filename?: string;
  contentType?: string;
  /** The part's bytes: a string, a file on disk, or chunks made on the fly. */
  body: string | { path: string } | (() => AsyncIterable<Uint8Array>);
}

const BOUNDARY = 'fileconvbenchboundary';
export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A multipart/form-data body produced as it is sent, so large parts never sit in memory. */
export async function* multipartBody(parts: readonly StreamPart[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    const type = p.contentType ? `Content-Type: ${p.contentType}\r\n` : '';
    yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`);
    if (typeof p.body === 'string') yield Buffer.from(p.body);
    else if (typeof p.body === 'function') yield* p.body();
    else yield* createReadStream(p.body.path, { highWaterMark: 1 << 20 });
    yield Buffer.from('\r\n');
  }
  yield Buffer.from(`--${BOUNDARY}--\r\n`);
}

export interface Submitted {
  status: number;
  id?: string;
}

/** POST /api/public/convert with the file streamed from disk. */
export async function submitConversion(
  base: string,
  conversion: string,
  path: string,
  filename: string,
  options?: Record<string, unknown>,
): Promise<Submitted> {
  const res = await request(`${base}/api/public/convert`, {
    method: 'POST',
    headers: { 'content-type': MULTIPART_TYPE },
    body: Readable.from(
      multipartBody([
        { name: 'meta', body: JSON.stringify({ conversion, options }), contentType: 'application/json' },
        { name: 'file', filename, contentType: 'application/octet-stream', body: { path } },
      ]),
    ),
  });
  const text = await res.body.text();
  if (res.statusCode !== 202) return { status: res.statusCode };
  return { status: 202, id: (JSON.parse(text) as { request_id: string }).request_id };
}

// biome-ignore lint/suspicious/noExplicitAny: the request view is read field by field.
export type RequestJson = any;

/**
 * One small conversion in one request, as a script converting small files would send it: the
 * file's bytes in a body of known length, and `?wait=` so the answer is the finished request.
 * Answers other than 200 come back as their status (202: still running after the wait).
 */
export async function convertAndWait(
  base: string,
  conversion: string,
  bytes: Buffer,
  filename: string,
): Promise<{ status: number; request?: RequestJson }> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n` +
      `${JSON.stringify({ conversion })}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const body = Buffer.concat([head, bytes, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
  const res = await request(`${base}/api/public/convert?wait=60`, {
    method: 'POST',
    headers: { 'content-type': MULTIPART_TYPE },
    body,
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    return { status: res.statusCode };
  }
  return { status: 200, request: await res.body.json() };
}

/** Long-polls a request (`?wait=30`) until it is no longer running. */
export async function waitFinished(base: string, id: string): Promise<RequestJson> {
  for (;;) {
    const res = await request(`${base}/api/public/requests/${id}?wait=30`);
    const json = (await res.body.json()) as RequestJson;
    if (json.status !== 'running') return json;
  }
}

/** Follows an artifact's 302 to the signed link and writes the file to `dest`. */
export async function download(base: string, id: string, artifact: string, dest: string): Promise<void> {
  const res = await request(`${base}/api/public/requests/${id}/artifacts/${artifact}`);
  await res.body.dump();
  const location = res.headers.location;
  if (res.statusCode !== 302 || typeof location !== 'string')
    throw new Error(`artifact answered ${res.statusCode}, not 302`);
  const file = await request(new URL(location, base).href);
  if (file.statusCode !== 200) throw new Error(`download answered ${file.statusCode}`);
  await pipeline(file.body, createWriteStream(dest));
}

/** The whole client cycle of one conversion: upload, long-poll, 302, download. */
export async function convertOverHttp(
  base: string,
  conversion: string,
  input: string,
  filename: string,
  dest: string,
  options?: Record<string, unknown>,
): Promise<void> {
  const sent = await submitConversion(base, conversion, input, filename, options);
  if (!sent.id) throw new Error(`convert answered ${sent.status}`);
  const done = await waitFinished(base, sent.id);
  if (done.status !== 'succeeded')
    throw new Error(`conversion ${done.status}: ${JSON.stringify(done.error)}`);
  await download(base, sent.id, done.artifacts[0].name, dest);
}

/** Runs `fn` and returns its wall time in seconds. */
export async function seconds(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

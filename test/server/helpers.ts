import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { generateApiKey, hashSecret, keyPrefix } from '../../src/identity/keys.js';
import { type RawServeOptions, resolveServeConfig } from '../../src/server/config.js';
import { publicUrlIntake } from '../../src/server/http/url-intake.js';
import { type RunningServer, type StartOptions, startServer } from '../../src/server/server.js';
import { openDataDirRecords } from '../../src/store/sqlite-records.js';

export const ROOT = join(import.meta.dirname, '..', '..');

export function tempDir(prefix = 'fileconv-server-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestServer extends RunningServer {
  dataDir: string;
  logs: string[];
  stop(): Promise<void>;
}

/** The real server in this process, on a free port, with a fresh data folder (or the one given). */
export async function startTestServer(
  flags: RawServeOptions = {},
  options: Omit<StartOptions, 'log' | 'urlIntake'> = {},
): Promise<TestServer> {
  const dataDir = flags.dataDir ?? tempDir();
  const config = resolveServeConfig(
    // These tests make many writes from one address: no per-minute limit, roomy quotas, unless asked.
    {
      host: '127.0.0.1',
      port: '0',
      concurrency: '2',
      rateLimit: '0',
      quotaAnon: 'conversions=100000,voice=100000,file_checks=100000',
      ...flags,
      dataDir,
    },
    {},
  );
  const logs: string[] = [];
  const server = await startServer(config, {
    urlIntake: publicUrlIntake(config.maxUpload),
    log: (m) => logs.push(m),
    ...options,
  });
  return {
    ...server,
    dataDir,
    logs,
    async stop() {
      await server.shutdown();
    },
  };
}

/**
 * Bytes no engine can read that are no format at all (no signature, not text): they pass the
 * declared-format check as any binary format and fail in the engine, MALFORMED_DOCUMENT for office
 * formats. Text would be refused up front as FORMAT_MISMATCH instead.
 */
export const UNREADABLE_BYTES = Buffer.alloc(700, 0);

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Every file under the data folder's blob store. */
export function blobFiles(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, 'blobs'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

export interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
}

/** A multipart/form-data body built by hand, so tests control every byte (malformed ones too). */
export function multipart(
  parts: readonly Part[],
  boundary = 'fileconvtestboundary',
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.contentType ? `Content-Type: ${p.contentType}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function metaPart(meta: unknown): Part {
  return { name: 'meta', value: JSON.stringify(meta), contentType: 'application/json' };
}

export function filePart(
  filename: string,
  value: string | Buffer,
  contentType = 'application/octet-stream',
): Part {
  return { name: 'file', filename, value, contentType };
}

/** A parsed JSON body; its shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field by the tests.
export type Json = any;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Json;
}

/** A response read whole: its text, and its JSON when it is JSON. */
export async function answer(res: Awaited<ReturnType<typeof request>>): Promise<Answer> {
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.statusCode, headers: res.headers, text, json };
}

export async function post(
  url: string,
  parts: readonly Part[],
  headers: Record<string, string> = {},
): Promise<Answer> {
  const { body, contentType } = multipart(parts);
  return answer(
    await request(url, { method: 'POST', body, headers: { 'content-type': contentType, ...headers } }),
  );
}

export async function get(
  url: string,
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' | 'PUT' | 'DELETE' | 'POST' = 'GET',
): Promise<Answer> {
  return answer(await request(url, { method, headers }));
}

/** Submits a conversion and returns its request id. */
export async function submit(
  base: string,
  conversion: string,
  filename: string,
  content: string | Buffer,
): Promise<string> {
  const res = await post(`${base}/api/public/convert`, [
    metaPart({ conversion }),
    filePart(filename, content),
  ]);
  if (res.status !== 202) throw new Error(`convert answered ${res.status}: ${res.text}`);
  return res.json.request_id as string;
}

/** Polls a request until it is no longer running. */
export async function waitDone(base: string, id: string, timeoutMs = 90_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await get(`${base}/api/public/requests/${id}`);
    if (res.json?.status !== 'running') return res.json;
    if (Date.now() > until) throw new Error(`request ${id} still running: ${res.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Polls a request's timeline until it holds an event of `kind`: the quota's refund is settled
 * after the failure is stored, so a client that saw `failed` may read the timeline before it.
 */
export async function waitEvent(base: string, id: string, kind: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await get(`${base}/api/public/requests/${id}/timeline`);
    if (res.json?.events?.some((e: { kind: string }) => e.kind === kind)) return;
    if (Date.now() > until) throw new Error(`request ${id} has no ${kind} event: ${res.text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls a request until its timeline shows the conversion started. */
export async function waitStarted(base: string, id: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await get(`${base}/api/public/requests/${id}/timeline`);
    if (res.json?.events?.some((e: { kind: string }) => e.kind === 'started')) return;
    if (Date.now() > until) throw new Error(`request ${id} never started`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Makes a .docx at test time with pandoc. */
export async function makeDocx(dir: string, paragraphs = 40): Promise<Buffer> {
  const md = join(dir, 'in.md');
  const out = join(dir, 'in.docx');
  const { writeFileSync, readFileSync } = await import('node:fs');
  writeFileSync(
    md,
    Array.from({ length: paragraphs }, (_, i) => `# Part ${i + 1}\n\nSome text for part ${i + 1}.\n`).join(
      '\n',
    ),
  );
  await new Promise<void>((resolve, reject) => {
    const p = spawn('pandoc', [md, '-o', out], { stdio: 'ignore' });
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pandoc exited ${code}`))));
  });
  return readFileSync(out);
}

export interface ChildServer {
  url: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** Starts `node bin/fileconv serve` as a child process and waits for its "listening on" line. */
export function startChildServer(
  dataDir: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ChildServer> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'fileconv'), 'serve', '--port', '0', '--data-dir', dataDir, ...extra],
    {
      cwd: ROOT,
      env: { ...process.env, FILECONV_PORT: '', FILECONV_DATA_DIR: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output.join('')}`)), 60_000);
    const onData = (d: Buffer) => {
      output.push(d.toString());
      const m = /listening on (http:\/\/\S+)/.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child, output, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${output.join('')}`));
    });
  });
}

export interface ChildWorker {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** What it printed, stdout and stderr. */
  output: string[];
}

/** Starts `node bin/fileconv worker` as a child process and waits until it says it runs. */
export function startChildWorker(
  dataDir: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ChildWorker> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'fileconv'), 'worker', '--data-dir', dataDir, ...extra],
    {
      cwd: ROOT,
      env: { ...process.env, FILECONV_DATA_DIR: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output.join('')}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      output.push(d.toString());
      if (output.join('').includes('fileconv worker running')) {
        clearTimeout(timer);
        resolve({ child, exited, output });
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${output.join('')}`)));
  });
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]] as const),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** A log destination that parses each JSON line it is written into `lines`. */
export function jsonLineSink(lines: Json[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
}

/** Downloads a request's artifact through its 302 to `dir/file`, returning the path. */
export async function downloadArtifact(
  base: string,
  id: string,
  artifact: string,
  dir: string,
  file = `${id}.${artifact}`,
): Promise<string> {
  const first = await request(`${base}/api/public/requests/${id}/artifacts/${artifact}`);
  const location = String(first.headers.location);
  await first.body.dump();
  const body = await request(new URL(location, base).href);
  const path = join(dir, file);
  writeFileSync(path, Buffer.from(await body.body.arrayBuffer()));
  return path;
}

/** Adds an API key straight to a SQLite server's database, as `fileconv keys create` does; returns its secret. */
export async function addApiKey(dataDir: string): Promise<string> {
  const secret = generateApiKey();
  const records = openDataDirRecords(dataDir);
  await records.keys.createKey({
    id: `key_${hashSecret(secret).slice(0, 12)}`,
    hash: hashSecret(secret),
    prefix: keyPrefix(secret),
    createdAt: Date.now(),
  });
  await records.close();
  return secret;
}

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { defineConverter, edgesBetween } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { sheet } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { engineOutputLimit } from '../src/run/sandbox.js';
import type { DataBytesTask, DataTask, DataTaskResult } from './data/worker.js';

const TREES = ['json', 'yaml', 'toml', 'xml', 'jsonl'] as const; // any shape
const TABLES = ['csv', 'tsv', 'xlsx'] as const;
const ALL: FormatId[] = [...TREES, ...TABLES];

/** Conversions at once, one worker thread each. */
const CONCURRENCY = 2;
/**
 * Heap of one worker thread. A 50 MB input (the input cap) parses to a few hundred MB of objects
 * and serialises to as much again; past this the worker is stopped instead of the server.
 */
export const WORKER_HEAP_MB = 1536;

/** Where information is dropped: spreadsheet formatting, types in text cells, nulls in TOML. */
function isLossy(from: FormatId, to: FormatId): boolean {
  if (from === 'xlsx' || to === 'xml' || to === 'toml') return true;
  const fromTable = from === 'csv' || from === 'tsv';
  return (to === 'csv' || to === 'tsv' || to === 'xlsx') && !fromTable;
}

const edges = [
  ...edgesBetween(ALL, ALL, (from, to) => ({
    family: (TABLES as readonly string[]).includes(from) ? 'spreadsheet' : 'data',
    lossy: isLossy(from, to),
    cost: 1,
  })),
  // A database is its tables: a workbook with a sheet each, or a CSV or JSON file each
  // (data/sqlite.ts). Lossy: column types, keys and indexes do not carry over.
  ...edgesBetween(['sqlite'], ['csv', 'json', 'xlsx'], (_, to) => ({
    family: 'data',
    lossy: true,
    cost: 1,
    ...(to === 'xlsx' ? {} : { multiOutput: true }),
  })),
];

/** A dependency's version from its package.json, found above its entry (not all export it). */
function libraryVersion(name: string): string {
  try {
    let dir = dirname(createRequire(import.meta.url).resolve(name));
    for (let up = dirname(dir); up !== dir; dir = up, up = dirname(dir)) {
      const pkg = join(dir, 'package.json');
      if (!existsSync(pkg)) continue;
      const json = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
      if (json.name === name && json.version) return json.version;
    }
  } catch {
    // not resolvable from here
  }
  return 'unknown';
}

/**
 * The worker module: TypeScript through tsx in a checkout; in a build, dist/converters/data/worker.js
 * beside this converter's own entry (tsup.config.ts builds each converter and worker as an entry).
 */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? join(dirname(here), 'data', 'worker-source.mjs')
    : join(dirname(here), 'data', 'worker.js');
}

let pool: Piscina<DataTask | DataBytesTask, DataTaskResult> | undefined;

/**
 * Parsing and serialising run on worker threads, so a 50 MB conversion never stalls the event
 * loop that answers every other request, and a memory blow-up ends one worker, not the server.
 * Threads are started on demand and leave after a while idle.
 */
function dataPool(): Piscina<DataTask | DataBytesTask, DataTaskResult> {
  pool ??= new Piscina<DataTask | DataBytesTask, DataTaskResult>({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: Math.min(CONCURRENCY, availableParallelism()),
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, stackSizeMb: 8 },
  });
  return pool;
}

/** Stops the worker threads (tests, shutdown); the next conversion starts new ones. */
export async function closeDataPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}

/**
 * Runs one task on the pool within the step's time limit; a failure, stop or refusal of the
 * task becomes the conversion's error.
 */
async function runTask(
  task: DataTask | DataBytesTask,
  ctx: { signal: AbortSignal; timeoutMs: number },
): Promise<Extract<DataTaskResult, { ok: true }>> {
  // Aborting a task terminates its worker thread: a time limit that stops even a busy parser.
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.timeoutMs)]);
  let result: DataTaskResult;
  try {
    result = await dataPool().run(task, { signal });
  } catch (e) {
    throw taskFailure(e, ctx.signal.aborted, ctx.timeoutMs);
  }
  if (!result.ok) throw new FileconvError(result.code ?? 'CONVERT_FAILED', result.message);
  return result;
}

/** What a failed or stopped task means for the conversion. */
function taskFailure(e: unknown, cancelled: boolean, timeoutMs: number): FileconvError {
  if (cancelled) return new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
  if ((e as { name?: string })?.name === 'AbortError')
    return new FileconvError(
      'CONVERT_FAILED',
      `The data engine took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`,
      { cause: e },
    );
  if ((e as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new FileconvError(
      'CONVERT_FAILED',
      `The data needs more than the ${WORKER_HEAP_MB} MB of memory the data engine allows.`,
      { cause: e },
    );
  return new FileconvError('CONVERT_FAILED', (e as Error)?.message ?? String(e), { cause: e });
}

const OPTIONS = {
  sheet,
};

export default defineConverter({
  name: 'data',
  description:
    'Data conversion among JSON, YAML, TOML, XML, JSON Lines, CSV, TSV and XLSX, and SQLite databases to them a table each, on worker threads',
  packages: [],
  edges,
  options: OPTIONS,
  concurrency: CONCURRENCY,
  timeoutMs: 120_000,
  async probe() {
    const libs = ['yaml', 'smol-toml', 'fast-xml-parser', 'papaparse', 'exceljs', 'better-sqlite3'];
    return { ok: true, path: 'in-process', version: libs.map((l) => `${l} ${libraryVersion(l)}`).join(', ') };
  },
  inMemory: {
    // Workbooks are read and written as streams of files; every other format is text.
    accepts: (edge) => edge.from !== 'xlsx' && edge.to !== 'xlsx' && edge.from !== 'sqlite',
    async run({ edge, input, checksMaxBytes }, ctx) {
      const task: DataBytesTask = {
        from: edge.from,
        to: edge.to,
        input,
        maxOutputBytes: engineOutputLimit(),
        checksMaxBytes,
      };
      const result = await runTask(task, ctx);
      if (!result.output) throw new FileconvError('CONVERT_FAILED', 'The data engine gave no output.');
      return { output: result.output, note: result.note, checks: result.checks };
    },
  },
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    const task: DataTask = {
      from: edge.from,
      to: edge.to,
      input,
      output,
      maxOutputBytes: engineOutputLimit(),
      sheet: options.sheet,
    };
    const result = await runTask(task, ctx);
    if (result.note) ctx.log(result.note);
    ctx.progress(1);
    return { files: result.files ?? [output] };
  },
});

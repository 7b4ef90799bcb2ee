import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { FileconvError } from '../errors/index.js';
import type { DetectOptions, DetectReport } from './index.js';
import type { DetectTask, DetectTaskResult } from './worker.js';

/**
 * The worker module: TypeScript through tsx in a checkout; in a build, dist/detect/worker.js
 * (tsup.config.ts builds it as an entry) beside the chunk this module is bundled into.
 */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? join(dirname(here), 'worker-source.mjs')
    : join(dirname(here), 'detect', 'worker.js');
}

let pool: Piscina<DetectTask, DetectTaskResult> | undefined;

/**
 * The server detects every upload. Detection reads a few small blocks and runs its text
 * heuristics, about a millisecond for a small text file: on one worker thread it leaves the main
 * thread, which answers every request, to the HTTP work (docs/performance.md, "Burst").
 */
function detectPool(): Piscina<DetectTask, DetectTaskResult> {
  pool ??= new Piscina<DetectTask, DetectTaskResult>({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 30_000,
    // Detection reads heads of files, a few blocks each: a heap this size is never reached by a
    // file, only by a fault, which then costs that one detection and not the server.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  return pool;
}

/** detect() on the detection worker thread: the same report, the same errors. */
export async function detectOffThread(file: string, options: DetectOptions): Promise<DetectReport> {
  const result = await detectPool().run({ file, options });
  if (result.ok) return result.report;
  if (result.code) throw new FileconvError(result.code, result.message);
  throw new Error(result.message);
}

/** Stops the worker thread (tests, shutdown); the next detection starts a new one. */
export async function closeDetectPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}

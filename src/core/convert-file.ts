import { FileconvError, isFileconvError } from '../errors/index.js';
import { runMerge } from '../run/merge.js';
import { checkInputCount } from '../run/merge-limits.js';
import { runConversion } from '../run/runner.js';
import type { Progress, RunEvent } from '../run/types.js';
import { sourceFormat } from './source-format.js';

export interface ConvertFileJob {
  /** The file to convert; read, never changed. */
  path: string;
  /** The name it goes by (its extension is the declared format); the path's base name by default. */
  filename: string;
  /** The source format; detected (with the name as a hint) when not given. */
  from?: string;
  to: string;
  options?: unknown;
  outDir: string;
  /** Output base name, without extension. */
  baseName: string;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  onEvent?: (event: RunEvent) => void;
}

export interface ConvertFileResult {
  from: string;
  to: string;
  /** The catalog key of the conversion that ran (`docx-pdf`). */
  key: string;
  /** Output paths, pages in page order. */
  outputs: string[];
}

/** The local conversion use case shared by the CLI and the library: resolve the source, plan, run. */
export async function convertFile(job: ConvertFileJob): Promise<ConvertFileResult> {
  const from = job.from ?? (await sourceFormat(job.path, job.filename));
  const result = await runConversion({
    input: job.path,
    from,
    to: job.to,
    options: job.options,
    outDir: job.outDir,
    baseName: job.baseName,
    signal: job.signal,
    onProgress: job.onProgress,
    onEvent: job.onEvent,
  });
  return { from, to: job.to, key: result.plan.key, outputs: result.files.map((f) => f.path) };
}

export interface MergeFilesJob extends Omit<ConvertFileJob, 'path' | 'filename' | 'from'> {
  /** The files in the order they are joined, each detected (its name a hint) unless `from` is given. */
  inputs: readonly { path: string; filename: string; from?: string }[];
}

/**
 * The local merge use case shared by the CLI and the library: every input's source resolved by the
 * one rule, then converted and joined into one file (src/run/merge.ts).
 */
export async function mergeFiles(job: MergeFilesJob): Promise<ConvertFileResult> {
  checkInputCount(job.inputs.length);
  const inputs = [];
  for (const [i, input] of job.inputs.entries()) {
    try {
      const from = input.from ?? (await sourceFormat(input.path, input.filename));
      inputs.push({ path: input.path, name: input.filename, from });
    } catch (e) {
      if (!isFileconvError(e)) throw e;
      throw new FileconvError(e.code, `Input ${i + 1} (${input.filename}): ${e.message}`, { cause: e });
    }
  }
  const result = await runMerge({ ...job, inputs });
  return { from: 'merge', to: job.to, key: result.plan.key, outputs: result.files.map((f) => f.path) };
}

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

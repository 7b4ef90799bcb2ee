import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Converter } from '../engine/contract.js';
import { isFileconvError } from '../errors/index.js';
import type { FormatId } from '../formats/index.js';
import { handToEngine } from './engine-files.js';
import { scrubPaths } from './failure.js';

/**
 * Repair before refusal: an input that every engine of the first step refused as malformed is
 * given to the engine that repairs its format (qpdf for PDF: qpdf's recovery, then Ghostscript's,
 * then MuPDF's), and the step runs again on the repaired copy. The timeline says it was repaired,
 * by which tool, and what was lost; when nothing recovers it, the refusal stands.
 */

export interface RepairEnv {
  converters: ReadonlyMap<string, Converter>;
  jobDir: string;
  signal: AbortSignal;
  emit: (kind: string, message: string) => void;
  /** Runs an engine's work in its lane, within its time limit (the runner's own way). */
  limited: <T>(
    converter: Converter,
    work: (signal: AbortSignal, timeoutMs: number) => Promise<T>,
  ) => Promise<T>;
}

/** Whether a failure is the input's damage (not a missing engine, a timeout or a password). */
export const isMalformed = (e: unknown) => isFileconvError(e) && e.code === 'MALFORMED_DOCUMENT';

/** A repaired copy of `input` in `dir`, or undefined when no engine repairs it. */
export async function repairInput(
  input: string,
  format: FormatId,
  dir: string,
  env: RepairEnv,
): Promise<string | undefined> {
  const repairer = [...env.converters.values()].find((c) => c.repair?.format === format);
  if (!repairer?.repair) return undefined;
  const workDir = join(dir, 'work');
  await mkdir(workDir, { recursive: true });
  await handToEngine([dir, workDir]);
  const output = join(dir, `repaired.${format}`);
  try {
    const result = await env.limited(repairer, (signal, timeoutMs) =>
      repairer.repair!.run(input, output, {
        signal,
        timeoutMs,
        workDir,
        jobDir: env.jobDir,
        progress: () => {},
        log: (m) => env.emit('log', `${repairer.name}: ${scrubPaths(m)}`),
      }),
    );
    const lost = result.lost ?? 'every page it declares is there';
    env.emit(
      'repaired',
      `the ${format} was damaged: repaired by ${result.by}, ${result.pages} page(s) recovered; ${lost}`,
    );
    return output;
  } catch (e) {
    if (env.signal.aborted) throw e;
    env.emit(
      'repair-failed',
      `the ${format} is damaged and could not be repaired: ${scrubPaths(String((e as Error).message))}`,
    );
    return undefined;
  }
}

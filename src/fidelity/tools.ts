import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StepContext } from '../engine/contract.js';
import { findBinary } from '../run/binary.js';
import { runProcess } from '../run/process.js';

/** How long one measuring tool (pdftotext, ffprobe...) may run. */
const TOOL_TIMEOUT_MS = 30_000;

/**
 * Runs measuring tools in a scratch folder of their own, sandboxed like engines; removed after.
 * The folder is made when the first tool runs: most text and data checks run none.
 */
export async function withTools<T>(
  signal: AbortSignal | undefined,
  work: (run: (tool: string, args: string[]) => Promise<string | undefined>) => Promise<T>,
): Promise<T> {
  let workDir: Promise<string> | undefined;
  /** A tool's stdout, or undefined when the tool is missing or fails (the measure is then unknown). */
  const run = async (tool: string, args: string[]) => {
    const path = findBinary([tool]);
    if (!path) return undefined;
    try {
      workDir ??= mkdtemp(join(process.env.FILECONV_TMPDIR ?? tmpdir(), 'fileconv-measure-'));
      const ctx: StepContext = {
        signal: signal ?? new AbortController().signal,
        timeoutMs: TOOL_TIMEOUT_MS,
        workDir: await workDir,
        progress: () => {},
        log: () => {},
      };
      return (await runProcess(path, args, ctx)).stdout;
    } catch {
      return undefined;
    }
  };
  try {
    return await work(run);
  } finally {
    const made = await workDir?.catch(() => undefined);
    if (made) await rm(made, { recursive: true, force: true });
  }
}

export type RunTool = Parameters<Parameters<typeof withTools>[1]>[0];

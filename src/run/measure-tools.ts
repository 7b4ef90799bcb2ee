import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StepContext } from '../engine/contract.js';
import {
  type ArtifactChecks,
  artifactChecks,
  type FidelityInput,
  type FidelityReport,
  judgeFidelity,
  type RunTool,
} from '../fidelity/index.js';
import { findBinary } from './binary.js';
import { runProcess } from './process.js';

/** How long one measuring tool (pdftotext, ffprobe...) may run. */
const TOOL_TIMEOUT_MS = 30_000;

/**
 * Runs measuring tools in a scratch folder of their own, sandboxed like engines; removed after.
 * The folder is made when the first tool runs: most text and data checks run none.
 */
export async function withTools<T>(
  signal: AbortSignal | undefined,
  work: (run: RunTool) => Promise<T>,
): Promise<T> {
  let workDir: Promise<string> | undefined;
  const run: RunTool = async (tool, args) => {
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

/** What each output kept (src/fidelity/checks.ts), with its measuring tools run here. */
export function measureChecks(input: FidelityInput): Promise<ArtifactChecks[]> {
  return withTools(input.signal, (run) => artifactChecks(input, run));
}

/**
 * The fidelity of one conversion against its floors (src/fidelity/measure.ts), with its measuring
 * tools run here.
 */
export function measureFidelity(input: FidelityInput): Promise<FidelityReport> {
  return withTools(input.signal, (run) => judgeFidelity(input, run));
}

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
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
  const scratch = () => {
    workDir ??= mkdtemp(join(process.env.FILECONV_TMPDIR ?? tmpdir(), 'fileconv-measure-'));
    return workDir;
  };
  const run: RunTool = async (tool, args) => {
    const path = findBinary([tool]);
    if (!path) return undefined;
    try {
      const ctx: StepContext = {
        signal: signal ?? new AbortController().signal,
        timeoutMs: TOOL_TIMEOUT_MS,
        workDir: await scratch(),
        progress: () => {},
        log: () => {},
      };
      return (await runProcess(path, args, ctx)).stdout;
    } catch {
      return undefined;
    }
  };
  const copies = new Map<string, Promise<string>>();
  run.pdfForPages = (pdf) => {
    let copy = copies.get(pdf);
    if (!copy) {
      // Named now: the folder is made later, when other PDFs may have been asked for meanwhile.
      const name = `pages-${copies.size}.pdf`;
      copy = pagesWithoutOutputIntent(pdf, run, async () => join(await scratch(), name));
      copies.set(pdf, copy);
    }
    return copy;
  };
  try {
    return await work(run);
  } finally {
    const made = await workDir?.catch(() => undefined);
    if (made) await rm(made, { recursive: true, force: true });
  }
}

/** Largest PDF searched for an output intent: checks read no larger files (CHECKS_MAX_BYTES). */
const OUTPUT_INTENT_SCAN_BYTES = 64 * 1024 * 1024;

/**
 * RunTool.pdfForPages: qpdf copies the pages into an empty document (the catalog's output intent,
 * outline and metadata stay behind; pages, their text and pictures are the same). Copied: a PDF
 * whose bytes name an output intent, or a PDF/A identification in its metadata (OCRmyPDF keeps the
 * catalog in a compressed object stream, where the intent cannot be seen, and its metadata plain).
 * Any other PDF is read as it is (one hiding an intent is read slowly, not wrongly), and so is one
 * qpdf cannot copy (encrypted, damaged).
 */
async function pagesWithoutOutputIntent(
  pdf: string,
  run: RunTool,
  target: () => Promise<string>,
): Promise<string> {
  const size = (await stat(pdf)).size;
  if (size > OUTPUT_INTENT_SCAN_BYTES) return pdf;
  const bytes = await readFile(pdf);
  if (!bytes.includes('/OutputIntents') && !bytes.includes('pdfaid:part')) return pdf;
  const copy = await target();
  const done = await run('qpdf', ['--warning-exit-0', '--empty', '--pages', pdf, '--', copy]);
  return done === undefined ? pdf : copy;
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

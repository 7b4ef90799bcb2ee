import { copyFile, open, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepairResult, StepContext } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { EngineProcessError, findBinary, runProcess } from '../src/run/process.js';

/**
 * A damaged PDF (cut short, its cross-reference table broken) written again as a readable one,
 * before it is refused: qpdf's recovery first (it rebuilds the cross-references from the objects
 * it finds), then Ghostscript's (its PDF interpreter reads what it can and pdfwrite writes it
 * anew), then MuPDF's (`mutool clean`, its own repair). Each copy's pages are counted with qpdf;
 * the first that has every page the file declares is taken, else the one with the most pages,
 * and what was lost is said by comparing with the page count the damaged file declares.
 */

/** The largest page count a page tree of the file declares (`/Type /Pages ... /Count N`). */
async function declaredPages(input: string): Promise<number | undefined> {
  const file = await open(input, 'r');
  let best: number | undefined;
  try {
    // Read in windows that overlap, so a dictionary across a window's edge is still seen.
    const size = 4 * 1024 * 1024;
    const buf = Buffer.alloc(size + 4096);
    for (let at = 0; ; at += size) {
      const { bytesRead } = await file.read(buf, 0, buf.length, at);
      if (bytesRead === 0) break;
      const text = buf.toString('latin1', 0, bytesRead);
      for (const m of text.matchAll(
        /\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g,
      )) {
        const n = Number(m[1] ?? m[2]);
        if (n > 0 && n > (best ?? 0)) best = n;
      }
      if (bytesRead < buf.length) break;
    }
  } finally {
    await file.close();
  }
  return best;
}

type Tool = {
  engine: string;
  binary: string[];
  args: (input: string, output: string) => string[];
  /** What the tool prints when the copy it wrote holds nothing of the input. */
  empty?: RegExp;
};

const TOOLS: Tool[] = [
  // Exit 3 is qpdf's "written, with warnings": the warnings are the damage it went round.
  { engine: 'qpdf', binary: ['qpdf'], args: (i, o) => [i, o] },
  {
    engine: 'ghostscript',
    binary: ['gs'],
    // Ghostscript writes a blank page for a file it could not open at all.
    empty: /No pages will be processed|Couldn't initialise file/,
    args: (i, o) => [
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-dNOPROMPT',
      '-q',
      '-sDEVICE=pdfwrite',
      `-sOutputFile=${o}`,
      i,
    ],
  },
  { engine: 'mupdf', binary: ['mutool'], args: (i, o) => ['clean', i, o] },
];

/** Pages of a PDF as qpdf counts them; 0 when it cannot read it. */
async function pagesOf(qpdf: string | undefined, pdf: string, ctx: StepContext): Promise<number> {
  if (!qpdf) return 0;
  const out = await runProcess(qpdf, ['--show-npages', pdf], ctx).then(
    (r) => r.stdout,
    (e: unknown) => (e instanceof EngineProcessError && e.exitCode === 3 ? e.stdout : ''),
  );
  return Number(out.trim()) || 0;
}

/** Runs one tool's recovery; the copy's page count, 0 when it wrote nothing readable. */
async function attempt(tool: Tool, input: string, output: string, ctx: StepContext): Promise<number> {
  const binary = findBinary(tool.binary);
  if (!binary) return 0;
  try {
    const { stdout, stderr } = await runProcess(binary, tool.args(input, output), ctx, { cwd: ctx.workDir });
    if (tool.empty?.test(stdout + stderr)) {
      ctx.log(`${tool.engine} found no page it could read`);
      return 0;
    }
  } catch (e) {
    if (!(e instanceof EngineProcessError)) throw e;
    if (!(tool.engine === 'qpdf' && e.exitCode === 3)) {
      ctx.log(`${tool.engine} could not repair the PDF`);
      return 0;
    }
  }
  return pagesOf(findBinary(['qpdf']), join(ctx.workDir, output), ctx);
}

/** Repairs `input` into `output`; throws MALFORMED_DOCUMENT when no tool recovers a page. */
export async function repairPdf(input: string, output: string, ctx: StepContext): Promise<RepairResult> {
  const declared = await declaredPages(input);
  // Plain names in the step's own folder: Ghostscript reads % in an output name as a page number.
  const source = join(ctx.workDir, 'damaged.pdf');
  await rm(source, { force: true });
  await symlink(input, source);
  let best: { engine: string; pages: number; file: string } | undefined;
  for (const tool of TOOLS) {
    const file = `repaired-${tool.engine}.pdf`;
    const pages = await attempt(tool, 'damaged.pdf', file, ctx);
    if (pages > (best?.pages ?? 0)) best = { engine: tool.engine, pages, file };
    if (best && (declared === undefined || best.pages >= declared)) break;
  }
  if (!best)
    throw new FileconvError(
      'MALFORMED_DOCUMENT',
      'qpdf, Ghostscript and MuPDF could not recover a page of the PDF.',
    );
  await copyFile(join(ctx.workDir, best.file), output);
  const missing = declared !== undefined && best.pages < declared ? declared - best.pages : 0;
  return {
    by: best.engine,
    lost: missing > 0 ? `${missing} of its ${declared} pages lost` : undefined,
    pages: best.pages,
  };
}

import { copyFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ConversionEdge, defineConverter, type StepContext } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { dpi, pages, quality } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import {
  assertPdfHeader,
  checkRasterLimits,
  DEFAULT_DPI,
  pageFilesInOrder,
  pageRuns,
  pdfPageSizes,
  selectPages,
} from './_pdf.js';
import { assertTextFound } from './_text-layer.js';

const edges: ConversionEdge[] = [
  { from: 'pdf', to: 'txt', family: 'document', lossy: true, cost: 5 },
  { from: 'pdf', to: 'html', family: 'document', lossy: true, cost: 6 },
  { from: 'pdf', to: 'png', family: 'document', lossy: true, cost: 10, multiOutput: true },
  { from: 'pdf', to: 'jpg', family: 'document', lossy: true, cost: 10, multiOutput: true },
];

function tool(name: string): string {
  const path = findBinary([name]);
  if (!path) throw new FileconvError('CONVERT_FAILED', `${name} (poppler-utils) not found on PATH`);
  return path;
}

/** Poppler's complaints about a PDF, as detail codes. */
function classify(e: unknown): unknown {
  if (!(e instanceof EngineProcessError)) return e;
  if (/Incorrect password|password/i.test(e.output))
    return new FileconvError('ENCRYPTED_DOCUMENT', undefined, { cause: e });
  if (/Syntax Error|Couldn't (find|read|open)|May not be a PDF|xref|trailer|damaged/i.test(e.output)) {
    return new FileconvError('MALFORMED_DOCUMENT', 'poppler could not read the PDF.', { cause: e });
  }
  return e;
}

async function poppler(name: string, args: string[], ctx: StepContext, onLine?: (line: string) => void) {
  try {
    return await runProcess(tool(name), args, ctx, { onLine });
  } catch (e) {
    throw classify(e);
  }
}

/** Page count of the PDF; also where encrypted and unreadable files are told apart. */
async function pageCount(input: string, ctx: StepContext): Promise<number> {
  const { stdout } = await poppler('pdfinfo', [input], ctx);
  const pages = Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1] ?? 0);
  if (pages < 1) throw new FileconvError('MALFORMED_DOCUMENT', 'The PDF has no pages.');
  return pages;
}

async function toText(input: string, pages: number[], output: string, ctx: StepContext): Promise<void> {
  // Reading order (no -layout): columns come out one after the other, which suits prose and
  // search better than a character grid. Pages end with a form feed.
  const parts: string[] = [];
  for (const [i, [first, last]] of pageRuns(pages).entries()) {
    const part = join(ctx.workDir, `text-${i}.txt`);
    await poppler('pdftotext', ['-enc', 'UTF-8', '-f', String(first), '-l', String(last), input, part], ctx);
    parts.push(await readFile(part, 'utf8'));
  }
  const text = parts.join('');
  assertTextFound(text);
  await writeFile(output, text);
}

async function toHtml(input: string, pages: number[], output: string, ctx: StepContext): Promise<void> {
  // One self-contained page (-s -noframes) without extracted image files (-i); pdftohtml takes
  // one page span, so a selection with gaps is rendered from its first to its last page.
  // A base name relative to the working folder (the process runs there): pdftohtml titles a PDF
  // without a title after it, and a full path would put this machine's temp folder in the page.
  const base = 'html-output';
  const args = ['-s', '-i', '-noframes', '-q', '-enc', 'UTF-8'];
  args.push('-f', String(pages[0]), '-l', String(pages[pages.length - 1]), input, base);
  await poppler('pdftohtml', args, ctx);
  await copyFile(join(ctx.workDir, `${base}.html`), output);
}

async function toImages(
  input: string,
  pages: number[],
  to: 'png' | 'jpg',
  dpi: number,
  quality: number | undefined,
  outDir: string,
  ctx: StepContext,
): Promise<string[]> {
  checkRasterLimits(pages, await pdfPageSizes(input, pages[0]!, pages[pages.length - 1]!, ctx), dpi);
  const format = to === 'png' ? ['-png'] : ['-jpeg', '-jpegopt', `quality=${quality ?? 85}`];
  let done = 0;
  const onLine = (line: string) => {
    // -progress prints "<page> <last page> <file>" to stderr per finished page.
    if (/^\d+ \d+ /.test(line)) ctx.progress(++done / pages.length);
  };
  for (const [first, last] of pageRuns(pages)) {
    const args = ['-r', String(dpi), ...format, '-f', String(first), '-l', String(last), '-progress'];
    await poppler('pdftoppm', [...args, input, join(outDir, 'page')], ctx, onLine);
  }
  const files = await pageFilesInOrder(outDir, to);
  if (files.length !== pages.length) {
    throw new FileconvError('CONVERT_FAILED', `pdftoppm wrote ${files.length} of ${pages.length} pages.`);
  }
  return files;
}

const OPTIONS = {
  pages,
  dpi,
  quality,
};

export default defineConverter({
  name: 'poppler',
  description: 'poppler-utils: PDF text, HTML and page images',
  packages: ['poppler-utils'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 300_000,
  async probe() {
    const probe = await probeBinary(['pdftoppm'], ['-v'], /pdftoppm version (\S+)/);
    const missing = ['pdfinfo', 'pdftotext', 'pdftohtml'].filter((b) => !findBinary([b]));
    if (probe.ok && missing.length > 0)
      return { ok: false, path: probe.path, detail: `missing ${missing.join(', ')}` };
    return probe;
  },
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    await assertPdfHeader(input);
    const pages = selectPages(options.pages, await pageCount(input, ctx));
    let files: string[];
    if (edge.to === 'txt' || edge.to === 'html') {
      const output = join(outDir, `output.${edge.to}`);
      await (edge.to === 'txt' ? toText : toHtml)(input, pages, output, ctx);
      if ((await stat(output)).size === 0)
        throw new FileconvError('CONVERT_FAILED', `poppler wrote an empty ${edge.to}`);
      files = [output];
    } else if (edge.to === 'png' || edge.to === 'jpg') {
      files = await toImages(input, pages, edge.to, options.dpi ?? DEFAULT_DPI, options.quality, outDir, ctx);
    } else {
      throw new FileconvError('CONVERT_FAILED', `poppler cannot write ${edge.to}`);
    }
    ctx.progress(1);
    return { files };
  },
});

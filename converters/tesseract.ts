import { open, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ConversionEdge,
  defineConverter,
  edgesBetween,
  type StepContext,
} from '../src/engine/contract.js';
import type { OptionValues } from '../src/engine/option-kit.js';
import { expandPages, optionsFor } from '../src/engine/options.js';
import { dpi, lang, ocr, pages } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import type { FormatId } from '../src/formats/index.js';
import { assertOcrLanguages } from '../src/run/ocr-languages.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { checkImagePixels } from './_ocr-limits.js';
import { checkRasterLimits, pdfPageCount, pdfPageSizes, popplerTool } from './_pdf.js';

// Not bmp: this leptonica refuses BMPs with bitfields (what most tools write for 32-bit), so a bmp
// goes through a png conversion first.
const IMAGES = ['png', 'jpg', 'tiff', 'gif', 'webp'] as const;
const DEFAULT_LANG = 'eng';
const DEFAULT_PDF_DPI = 300;
/** OCR runs about a second or more a page; past this a scanned PDF is better split by the caller. */
export const MAX_OCR_PAGES = 100;

const edges: ConversionEdge[] = [
  // Cheaper than any image -> pdf -> text-layer path, which would find no text in a picture.
  ...edgesBetween(IMAGES, ['txt'], { family: 'ocr', lossy: true, cost: 5 }),
  // A searchable PDF; a plain image -> pdf (lossless, cheaper) stays the default for that pair.
  ...edgesBetween(IMAGES, ['pdf'], { family: 'ocr', lossy: true, cost: 15 }),
  // Text-layer extraction (poppler) is cheaper and exact; OCR is the way for scans.
  { from: 'pdf', to: 'txt', family: 'ocr', lossy: true, cost: 40 },
];

/** Magic bytes per image source: tesseract treats a non-image input as a list of files to read. */
const MAGIC: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  tiff: (b) => ['49492a00', '4d4d002a'].includes(b.subarray(0, 4).toString('hex')),
  gif: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  webp: (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  pdf: (b) => b.subarray(0, 1024).includes('%PDF-'),
};

async function checkMagic(format: FormatId, input: string): Promise<void> {
  const handle = await open(input, 'r');
  const head = Buffer.alloc(1024);
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  if (!MAGIC[format]?.(head)) {
    throw new FileconvError(
      'MALFORMED_DOCUMENT',
      `The file is not a ${format} file (its first bytes say otherwise).`,
    );
  }
}

/** The `-l` value, each `+`-joined language checked against the installed traineddata. */
async function languageArg(lang: string | undefined): Promise<string> {
  const wanted = lang ?? DEFAULT_LANG;
  await assertOcrLanguages(wanted);
  return wanted;
}

function classifyPdfError(e: unknown): unknown {
  if (!(e instanceof EngineProcessError)) return e;
  if (/Incorrect password/i.test(e.output))
    return new FileconvError('ENCRYPTED_DOCUMENT', undefined, { cause: e });
  if (/May not be a PDF file|Couldn't read xref table|Couldn't find trailer/i.test(e.output)) {
    return new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
  }
  return e;
}

/** Rasterises one page to a greyscale PNG in the work folder. */
async function rasterisePage(input: string, page: number, dpi: number, ctx: StepContext): Promise<string> {
  const base = join(ctx.workDir, `page-${String(page).padStart(5, '0')}`);
  const p = String(page);
  await runProcess(
    popplerTool('pdftoppm'),
    ['-r', String(dpi), '-gray', '-png', '-f', p, '-l', p, '-singlefile', input, base],
    ctx,
  );
  return `${base}.png`;
}

/** OCRs the selected pages one at a time (bounded scratch space), text joined in page order. */
async function ocrPdfToText(
  tesseract: string,
  input: string,
  lang: string,
  options: Options,
  ctx: StepContext,
): Promise<string> {
  try {
    const count = await pdfPageCount(input, ctx);
    const pages = expandPages(options.pages, count);
    if (pages.length === 0)
      throw new FileconvError('INVALID_REQUEST', `The PDF has ${count} pages; none were selected.`);
    if (pages.length > MAX_OCR_PAGES) {
      throw new FileconvError(
        'CONVERT_FAILED',
        `OCR is limited to ${MAX_OCR_PAGES} pages; select fewer with pages.`,
      );
    }
    const dpi = options.dpi ?? DEFAULT_PDF_DPI;
    checkRasterLimits(pages, await pdfPageSizes(input, pages[0]!, pages.at(-1)!, ctx), dpi);
    const texts: string[] = [];
    for (const [i, page] of pages.entries()) {
      const png = await rasterisePage(input, page, dpi, ctx);
      const { stdout } = await runProcess(tesseract, [png, '-', '-l', lang], ctx);
      texts.push(stdout);
      await rm(png, { force: true });
      ctx.progress((i + 1) / pages.length);
    }
    return texts.join('');
  } catch (e) {
    throw classifyPdfError(e);
  }
}

const OPTIONS = {
  lang,
  dpi,
  pages,
  ocr,
};
type Options = OptionValues<typeof OPTIONS>;

export default defineConverter({
  name: 'tesseract',
  description: 'Tesseract OCR: text or searchable PDF from images, text from scanned PDFs',
  packages: ['tesseract-ocr', 'tesseract-ocr-eng'],
  edges,
  options: OPTIONS,
  concurrency: 1,
  timeoutMs: 300_000,
  probe: () => probeBinary(['tesseract'], ['--version'], /tesseract\s+v?(\S+)/),
  async checkOptions(given) {
    await languageArg(optionsFor(OPTIONS, given).lang);
  },
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const tesseract = findBinary(['tesseract']);
    if (!tesseract) throw new FileconvError('CONVERT_FAILED', 'tesseract is not installed.');
    await checkMagic(edge.from, input);
    const lang = await languageArg(options.lang);
    if (edge.from === 'pdf') {
      const output = join(outDir, 'output.txt');
      await writeFile(output, await ocrPdfToText(tesseract, input, lang, options, ctx));
      return { files: [output] };
    }
    await checkImagePixels(input);
    const base = join(outDir, 'output');
    const dpi = options.dpi ? ['--dpi', String(options.dpi)] : [];
    try {
      await runProcess(tesseract, [input, base, '-l', lang, ...dpi, edge.to === 'pdf' ? 'pdf' : 'txt'], ctx);
    } catch (e) {
      if (
        e instanceof EngineProcessError &&
        /pix not read|Unsupported image type|image file not found/i.test(e.output)
      ) {
        throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
      }
      throw e;
    }
    ctx.progress(1);
    const produced = (await readdir(outDir)).filter((f) => f.startsWith('output.'));
    if (!produced.includes(`output.${edge.to}`))
      throw new FileconvError('CONVERT_FAILED', 'tesseract wrote no output.');
    return { files: [join(outDir, `output.${edge.to}`)] };
  },
});

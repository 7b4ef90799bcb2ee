import { open } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { bool, defineOption, OPERATION_ORDER } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { keepActiveContent, lang, ocr } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import type { FormatId } from '../src/formats/index.js';
import { assertOcrLanguages } from '../src/run/ocr-languages.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { statedResolution } from './_image-resolution.js';
import { checkOcrPixels } from './_ocr-limits.js';
import { assertPdfHeader, MAX_RASTER_PAGES, pdfPageCount } from './_pdf.js';
import { withoutActiveContent } from './_pdf-active.js';

/**
 * OCRmyPDF: a scan becomes a searchable PDF, the page pictures kept as they are with Tesseract's
 * text laid invisibly under them. Only with `ocr: true`; pages that already have text are left
 * as they are (`--skip-text`), and sideways pages are turned upright.
 */

const OPTIONS = {
  keep_active_content: keepActiveContent,
  ocr,
  lang,
  deskew: defineOption(bool(), 'straighten pages scanned at a slant (re-encodes their pictures)', {
    order: OPERATION_ORDER.ocr,
  }),
};

const notAsked = (o: { ocr?: unknown }) => o.ocr !== true;

const edges: ConversionEdge[] = [
  { from: 'pdf', to: 'pdf', family: 'ocr', lossy: false, cost: 40, skipWhen: notAsked },
  ...(['png', 'jpg', 'tiff'] as FormatId[]).map(
    (from): ConversionEdge => ({
      from,
      to: 'pdf',
      family: 'ocr',
      lossy: false,
      cost: 40,
      skipWhen: notAsked,
    }),
  ),
];

/** A scan that does not say how large it was scanned is taken as scanned at this resolution. */
const SCAN_DPI = 300;

/**
 * `--image-dpi` for a picture: its own resolution kept (OCRmyPDF's option overrides what the file
 * states), a scan's where it states none. One figure only: a picture stating two different ones
 * is left to OCRmyPDF, which reads both.
 */
async function imageDpi(input: string): Promise<string[]> {
  const head = Buffer.alloc(1024 * 1024);
  const file = await open(input, 'r');
  const { bytesRead } = await file.read(head, 0, head.length, 0).finally(() => file.close());
  const meta = await sharp(input).metadata();
  const stated = statedResolution(meta, head.subarray(0, bytesRead));
  if (!stated) return ['--image-dpi', String(SCAN_DPI)];
  return Math.abs(stated[0] - stated[1]) < 1 ? ['--image-dpi', String(Math.round(stated[0]))] : [];
}

/** OCRmyPDF's exit codes that say what was wrong with the input. */
const EXIT_ENCRYPTED = 8;
const EXIT_BAD_INPUT = 2;

export default defineConverter({
  name: 'ocrmypdf',
  description: 'OCRmyPDF with Tesseract: scans (PDF or images) to searchable PDFs, with `ocr: true`',
  packages: ['ocrmypdf', 'tesseract-ocr-eng', 'poppler-utils'],
  edges,
  options: OPTIONS,
  concurrency: 1,
  timeoutMs: 600_000,
  probe: () => probeBinary(['ocrmypdf'], ['--version'], /^(\d+\.\d+(?:\.\d+)?)/),
  async checkOptions(given) {
    await assertOcrLanguages(optionsFor(OPTIONS, given).lang ?? 'eng');
  },
  async run({ edge, input, outDir, options: given }, ctx) {
    const o = optionsFor(OPTIONS, given);
    const binary = findBinary(['ocrmypdf']);
    if (!binary) throw new FileconvError('CONVERT_FAILED', 'ocrmypdf is not installed.');
    let pages = 1;
    if (edge.from === 'pdf') {
      await assertPdfHeader(input);
      // Every page is drawn and read: a bound on pages is a bound on time, as for page images.
      pages = await pdfPageCount(input, ctx);
      if (pages > MAX_RASTER_PAGES)
        throw new FileconvError(
          'OUTPUT_TOO_LARGE',
          `The PDF has ${pages} pages; at most ${MAX_RASTER_PAGES} are read with OCR in one conversion (split it first: the split option).`,
        );
    }
    await checkOcrPixels(input, edge.from, pages, ctx);
    const source = edge.from === 'pdf' ? await withoutActiveContent(input, o, ctx) : input;
    const output = join(outDir, 'output.pdf');
    const args = ['--skip-text', '--rotate-pages', '--output-type', 'pdf', '--optimize', '1', '--jobs', '1'];
    if (o.lang) args.push('-l', o.lang);
    if (o.deskew) args.push('--deskew');
    if (edge.from !== 'pdf') args.push(...(await imageDpi(input)));
    ctx.log(`reading the pages with OCR (${o.lang ?? 'eng'})`);
    try {
      // The default memory cap of every engine holds for OCRmyPDF and the Tesseract it starts.
      await runProcess(binary, [...args, '--', source, output], ctx);
    } catch (e) {
      if (!(e instanceof EngineProcessError)) throw e;
      if (e.exitCode === EXIT_ENCRYPTED)
        throw new FileconvError('ENCRYPTED_DOCUMENT', undefined, { cause: e });
      if (e.exitCode === EXIT_BAD_INPUT)
        throw new FileconvError('MALFORMED_DOCUMENT', 'OCRmyPDF could not read the file.', { cause: e });
      if (/language|traineddata/i.test(e.output))
        throw new FileconvError('INVALID_REQUEST', `Tesseract has no data for the language "${o.lang}".`, {
          cause: e,
        });
      throw e;
    }
    ctx.progress(1);
    return { files: [output] };
  },
});

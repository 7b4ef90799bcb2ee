import sharp from 'sharp';
import type { StepContext } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { runProcess } from '../src/run/process.js';
import { MAX_PAGE_PIXELS, pdfPageSizes, popplerTool } from './_pdf.js';

/**
 * What OCR may be asked to read: each page is one picture Tesseract holds whole, so pages and
 * pictures get the 100-megapixel cap page images have (_pdf.ts), checked from headers and page
 * sizes before anything is drawn.
 */

/** The resolution OCRmyPDF draws a page without pictures at (its own default for vector pages). */
const VECTOR_PAGE_DPI = 400;

function tooLarge(what: string, w: number, h: number): FileconvError {
  return new FileconvError(
    'INPUT_TOO_LARGE',
    `${what} would be read with OCR as ${w} x ${h} pixels, over the limit of ${MAX_PAGE_PIXELS / 1e6} megapixels.`,
  );
}

/**
 * Every page is drawn as one picture and Tesseract holds it whole: the same 100-megapixel cap as
 * page images, checked before anything is drawn. A page counts at 400 dpi (a blank 3000 x 3000 pt
 * page would be 16667 x 16667 pixels), each picture in it at its own size.
 */
export async function checkOcrPixels(
  input: string,
  from: string,
  pages: number,
  ctx: StepContext,
): Promise<void> {
  if (from !== 'pdf') return checkImagePixels(input);
  for (const { page, width, height } of await pdfPageSizes(input, 1, pages, ctx)) {
    const w = Math.ceil((width * VECTOR_PAGE_DPI) / 72);
    const h = Math.ceil((height * VECTOR_PAGE_DPI) / 72);
    if (w * h > MAX_PAGE_PIXELS) throw tooLarge(`Page ${page} (${width} x ${height} pt)`, w, h);
  }
  const { stdout } = await runProcess(popplerTool('pdfimages'), ['-list', input], ctx);
  for (const row of stdout.split('\n').slice(2)) {
    const [page, , , w = 0, h = 0] = row.trim().split(/\s+/).map(Number);
    if (w * h > MAX_PAGE_PIXELS) throw tooLarge(`A picture on page ${page}`, w, h);
  }
}

/** A picture to read with OCR: its size from its header, nothing decoded. */
export async function checkImagePixels(input: string): Promise<void> {
  const meta = await sharp(input, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  const w = meta?.width ?? 0;
  const h = meta?.pageHeight ?? meta?.height ?? 0;
  if (w * h > MAX_PAGE_PIXELS) throw tooLarge('The image', w, h);
}

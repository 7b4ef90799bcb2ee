import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../src/engine/contract.js';
import { expandPages } from '../src/engine/options.js';
import { FileconvError } from '../src/errors/index.js';
import { findBinary, runProcess } from '../src/run/process.js';

/** Shared by the PDF engines (poppler, ghostscript): input checks, page selection and raster caps. */

/** Pages rasterised in one conversion at most. */
export const MAX_RASTER_PAGES = 500;
/** Pixels of one rasterised page at most (an A1 page at 300 dpi is about 70 million). */
export const MAX_PAGE_PIXELS = 100_000_000;
export const DEFAULT_DPI = 150;

/**
 * Checks that a file really starts like a PDF (the header may follow up to 1 KiB of junk, as
 * readers allow). Otherwise an engine might treat it as something else: ghostscript would run it
 * as a PostScript program.
 */
export async function assertPdfHeader(path: string): Promise<void> {
  const file = await open(path, 'r');
  try {
    const buf = Buffer.alloc(1024);
    const { bytesRead } = await file.read(buf, 0, buf.length, 0);
    if (!buf.subarray(0, bytesRead).includes('%PDF-')) {
      throw new FileconvError('MALFORMED_DOCUMENT', 'The file does not start with a PDF header.');
    }
  } finally {
    await file.close();
  }
}

/** How much of a PDF's end is searched for the trailer's /Encrypt entry. */
const TRAILER_BYTES = 64 * 1024;

/**
 * True when the PDF's trailer (or cross-reference stream, both at the end) names an /Encrypt
 * dictionary: readers then need a password, or apply owner restrictions, before they show it.
 */
export async function isEncryptedPdf(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const length = Math.min(size, TRAILER_BYTES);
    const buf = Buffer.alloc(length);
    await file.read(buf, 0, length, size - length);
    return /\/Encrypt[\s/<0-9]/.test(buf.toString('latin1'));
  } finally {
    await file.close();
  }
}

/** The pages to work on: the `pages` option expanded against the page count (all when unset). */
export function selectPages(pages: string | undefined, pageCount: number): number[] {
  const selected = expandPages(pages, pageCount);
  if (selected.length === 0) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `The pages option selects no page of this ${pageCount}-page PDF.`,
    );
  }
  return selected;
}

/** Sorted page numbers as runs of consecutive pages: [1,2,3,5] -> [[1,3],[5,5]]. */
export function pageRuns(pages: readonly number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const p of pages) {
    const last = runs[runs.length - 1];
    if (last && p === last[1] + 1) last[1] = p;
    else runs.push([p, p]);
  }
  return runs;
}

/** A page's size in points (1/72 inch). */
export interface PageSize {
  page: number;
  width: number;
  height: number;
}

/** The sizes of pages first to last, as pdfinfo reads them. */
export async function pdfPageSizes(
  input: string,
  first: number,
  last: number,
  ctx: StepContext,
): Promise<PageSize[]> {
  const args = ['-f', String(first), '-l', String(last), input];
  const { stdout } = await runProcess(popplerTool('pdfinfo'), args, ctx);
  return [...stdout.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({
    page: Number(m[1]),
    width: Number(m[2]),
    height: Number(m[3]),
  }));
}

/** Refuses a rasterisation of too many pages, or of a page that would be too many pixels. */
export function checkRasterLimits(pages: readonly number[], sizes: readonly PageSize[], dpi: number): void {
  if (pages.length > MAX_RASTER_PAGES) {
    throw new FileconvError(
      'OUTPUT_TOO_LARGE',
      `${pages.length} pages selected; at most ${MAX_RASTER_PAGES} pages are rasterised at once (use the pages option).`,
    );
  }
  const wanted = new Set(pages);
  for (const { page, width, height } of sizes) {
    if (!wanted.has(page)) continue;
    const w = Math.ceil((width * dpi) / 72);
    const h = Math.ceil((height * dpi) / 72);
    if (w * h > MAX_PAGE_PIXELS) {
      throw new FileconvError(
        'OUTPUT_TOO_LARGE',
        `Page ${page} would be ${w} x ${h} pixels at ${dpi} dpi, over the limit of ${MAX_PAGE_PIXELS / 1e6} megapixels; use a lower dpi.`,
      );
    }
  }
}

/** Files in `dir` ending in `.ext`, ordered by the page number at the end of their names. */
export async function pageFilesInOrder(dir: string, ext: string): Promise<string[]> {
  const numbered = (await readdir(dir))
    .filter((f) => f.endsWith(`.${ext}`))
    .map((f) => ({ f, n: Number(/(\d+)\.[^.]+$/.exec(f)?.[1] ?? Number.NaN) }))
    .filter(({ n }) => Number.isFinite(n))
    .sort((a, b) => a.n - b.n);
  return numbered.map(({ f }) => join(dir, f));
}

/** A poppler tool (poppler-utils), which the PDF engines use to count and draw pages. */
export function popplerTool(name: string): string {
  const path = findBinary([name]);
  if (!path)
    throw new FileconvError('CONVERT_FAILED', `${name} (poppler-utils) is needed to read PDF pages.`);
  return path;
}

/** The page count pdfinfo reads from a PDF. */
export async function pdfPageCount(input: string, ctx: StepContext): Promise<number> {
  const { stdout } = await runProcess(popplerTool('pdfinfo'), [input], ctx);
  const m = /^Pages:\s+(\d+)/m.exec(stdout);
  if (!m) throw new FileconvError('MALFORMED_DOCUMENT', 'The PDF reports no pages.');
  return Number(m[1]);
}

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScriptLine } from './documents.js';
import { fontsCovering, inkedChars, pdfFonts, type TextRun, textRuns } from './pdf-fonts.js';

/**
 * Looks at what a PDF draws, not only at its text layer: which fonts it embeds, which font draws
 * each run of text, whether that font has glyphs for the run's characters (a font without them
 * draws its .notdef box), whether the rendered page shows missing-glyph boxes, and whether each
 * run leaves ink (a colour emoji font whose bitmaps the PDF dropped leaves none).
 */

/**
 * Pages rendered in grey at 108 dpi, the scale of pdftohtml's boxes (1.5 pixels per point). As
 * PGM, whose pixels follow a one-line header: compressing PNGs took most of the time of a long
 * document's check.
 */
function renderPages(pdf: string): Map<number, Page> {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-glyphs-'));
  try {
    execFileSync('pdftoppm', ['-r', '108', '-gray', pdf, join(dir, 'page')]);
    const pages = new Map<number, Page>();
    for (const file of readdirSync(dir).sort()) {
      const page = Number(/-(\d+)\.pgm$/.exec(file)?.[1]);
      const bytes = readFileSync(join(dir, file));
      const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString('latin1'));
      if (!header) throw new Error(`${file}: not an 8-bit PGM`);
      const [width, height] = [Number(header[1]), Number(header[2])];
      pages.set(page, { data: bytes.subarray(header[0].length), width, height });
    }
    return pages;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Page = { data: Buffer; width: number; height: number };

/**
 * The ink of a box of a rendered page as rows of booleans (pixels darker than `below`), clipped to
 * the page.
 */
function inkMask(
  page: Page,
  box: Pick<TextRun, 'top' | 'left' | 'width' | 'height'>,
  below: number,
): boolean[][] {
  const x0 = Math.max(0, Math.floor(box.left));
  const y0 = Math.max(0, Math.floor(box.top));
  const x1 = Math.min(page.width, Math.ceil(box.left + box.width));
  const y1 = Math.min(page.height, Math.ceil(box.top + box.height));
  const rows: boolean[][] = [];
  for (let y = y0; y < y1; y++) {
    const row: boolean[] = [];
    for (let x = x0; x < x1; x++) row.push((page.data[y * page.width + x] ?? 255) < below);
    rows.push(row);
  }
  return rows;
}

/** The glyph images of a run: columns of ink split at blank columns, each trimmed to its ink. */
function glyphImages(mask: boolean[][]): boolean[][][] {
  const width = mask[0]?.length ?? 0;
  const inkAt = (x: number) => mask.some((row) => row[x]);
  const images: boolean[][][] = [];
  let start = -1;
  for (let x = 0; x <= width; x++) {
    if (x < width && inkAt(x)) {
      if (start < 0) start = x;
      continue;
    }
    if (start < 0) continue;
    const rows = mask.map((row) => row.slice(start, x));
    const inked = rows.map((r) => r.some(Boolean));
    images.push(rows.slice(inked.indexOf(true), inked.lastIndexOf(true) + 1));
    start = -1;
  }
  return images;
}

const share = (cells: boolean[]) => (cells.length === 0 ? 0 : cells.filter(Boolean).length / cells.length);

/** A hollow rectangle: the missing-glyph box most fonts draw. */
function isBox(image: boolean[][]): boolean {
  const h = image.length;
  const w = image[0]?.length ?? 0;
  if (w < 4 || h < 4) return false;
  const column = (x: number) => image.map((row) => row[x] ?? false);
  const edges = [image[0]!, image[h - 1]!, column(0), column(w - 1)];
  // Inside the outline, two pixels in from each edge (anti-aliasing thickens it).
  const inside = image.slice(2, h - 2).flatMap((row) => row.slice(2, w - 2));
  return edges.every((edge) => share(edge) >= 0.8) && share(inside) <= 0.05;
}

/**
 * True when a run is drawn mostly as missing-glyph boxes, whatever font (even an unnamed Type 3
 * one) drew it. (The run's text cannot tell: a PDF may map every box to the same character.)
 */
function drawnAsBoxes(page: Page, run: TextRun): boolean {
  const images = glyphImages(inkMask(page, run, 128));
  const boxes = images.filter(isBox).length;
  return boxes >= 2 && boxes * 2 >= images.length;
}

/** Share of dark pixels inside a box of a rendered page. */
function inkShare(page: Page, box: Pick<TextRun, 'top' | 'left' | 'width' | 'height'>): number {
  // Light enough for a yellow emoji face to count, dark enough to ignore paper.
  const pixels = inkMask(page, box, 224).flat();
  return pixels.length === 0 ? 0 : pixels.filter(Boolean).length / pixels.length;
}

export interface GlyphReport {
  embedded: Set<string>;
  runs: TextRun[];
  /** One line per fault; empty when every script is drawn with real glyphs. */
  problems: string[];
}

/**
 * Checks every line of `lines` in the PDF; `problems` names each script drawn as boxes or not at
 * all. Runs in a named embedded font are checked against that font's glyphs; runs in Type 3 fonts
 * (Chromium draws CFF and colour glyphs as procedures, with no font name) only by their pixels.
 */
export async function inspectGlyphs(pdf: string, lines: readonly ScriptLine[]): Promise<GlyphReport> {
  const { named: embedded, type3 } = pdfFonts(pdf);
  const runs = textRuns(pdf);
  const pages = renderPages(pdf);
  const problems: string[] = [];
  for (const run of runs) {
    const chars = inkedChars(run.text);
    if (chars.length > 0 && embedded.has(run.font) && !fontsCovering(chars).has(run.font))
      problems.push(`"${run.text}" is drawn with ${run.font}, which has no glyphs for it (boxes)`);
    const page = pages.get(run.page);
    if (page && drawnAsBoxes(page, run)) problems.push(`"${run.text}" is drawn as missing-glyph boxes`);
  }
  for (const line of lines) {
    const sample = inkedChars(line.text);
    // NFKC folds the presentation forms some PDFs map Arabic glyphs to back to plain letters.
    const mine = runs.filter((r) => inkedChars(r.text.normalize('NFKC')).some((c) => sample.includes(c)));
    const unnamedOnly = mine.length > 0 && mine.every((r) => !embedded.has(r.font));
    if (!(unnamedOnly && type3) && ![...fontsCovering(sample)].some((k) => embedded.has(k)))
      problems.push(`${line.script}: no embedded font covers it (embedded: ${[...embedded].join(', ')})`);
    if (mine.length === 0) {
      problems.push(`${line.script}: not in the text layer`);
      continue;
    }
    for (const run of mine) {
      const page = pages.get(run.page);
      if (!page || inkShare(page, run) < 0.01)
        problems.push(`${line.script}: "${run.text}" leaves no ink on page ${run.page}`);
    }
  }
  return { embedded, runs, problems };
}

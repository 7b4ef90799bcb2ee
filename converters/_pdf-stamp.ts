import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../src/engine/contract.js';
import { bool, defineOption, int, like, num, type OptionValues, oneOf } from '../src/engine/option-kit.js';
import { FileconvError } from '../src/errors/index.js';
import { escapeXml, fontconfigEnv } from '../src/fonts/fontconfig.js';
import { findBinary, runProcess } from '../src/run/process.js';
import { popplerTool } from './_pdf.js';
import {
  DRAWN,
  EDGE_POSITIONS,
  readStampPicture,
  STAMP_IMAGE_OPTIONS,
  writeStampPictureSvgs,
} from './_pdf-stamp-image.js';

/**
 * What is drawn over the pages of a PDF: a text watermark, a rubber stamp from a small built-in
 * set, and page numbers. One overlay PDF is drawn (one SVG per page, made into a PDF by
 * rsvg-convert, whose text stays text) and laid over the pages by qpdf's --overlay. The user's
 * text only ever goes into SVG element content, escaped: it is drawn, never read as markup.
 */

/** Any printable text; control characters cannot be drawn (and are not allowed in XML). */
const TEXT = like(/^[^\p{Cc}]{1,200}$/u, 'DRAFT');

/** The built-in stamps, drawn as vector art (a picture of one's own is stamp_image). */
export const STAMPS = ['approved', 'rejected', 'draft', 'confidential', 'copy', 'paid', 'void'] as const;

export const STAMP_OPTIONS = {
  watermark: defineOption(TEXT, 'text drawn across every page (the pages option chooses the pages)', DRAWN),
  watermark_opacity: defineOption(
    num(0.05, 1),
    'with watermark: 0.05 (faint) to 1 (solid), default 0.25',
    DRAWN,
  ),
  watermark_size: defineOption(
    int(6, 400),
    'with watermark: font size in points (default: fits the page)',
    DRAWN,
  ),
  watermark_angle: defineOption(
    int(-90, 90),
    'with watermark: degrees counter-clockwise (default 45)',
    DRAWN,
  ),
  watermark_color: defineOption(
    like(/^#[0-9a-fA-F]{6}$/, '#808080'),
    'with watermark: colour (default #808080)',
    DRAWN,
  ),
  stamp: defineOption(
    oneOf(STAMPS),
    `a rubber stamp drawn at the top right of every page: ${STAMPS.join(', ')}`,
    DRAWN,
  ),
  page_numbers: defineOption(bool(), 'number the pages', DRAWN),
  page_numbers_position: defineOption(
    oneOf(EDGE_POSITIONS),
    'with page_numbers: where (default bottom-center)',
    DRAWN,
  ),
  page_numbers_format: defineOption(
    like(/^[^\p{Cc}]{0,100}\{n\}[^\p{Cc}]{0,100}$/u, 'Page {n} of {total}'),
    'with page_numbers: the text, {n} the number and {total} the count (default {n})',
    DRAWN,
  ),
  page_numbers_start: defineOption(
    int(0, 1_000_000),
    'with page_numbers: the number of the first page (default 1)',
    DRAWN,
  ),
  ...STAMP_IMAGE_OPTIONS,
};
export type StampValues = OptionValues<typeof STAMP_OPTIONS>;

/** Whether any overlay is asked: then the pages are drawn over before anything else. */
export const wantsOverlay = (o: StampValues): boolean =>
  o.watermark !== undefined ||
  o.stamp !== undefined ||
  o.page_numbers === true ||
  o.stamp_image !== undefined;

/** A page as a reader shows it: the trim box's size, turned by the page's rotation. */
export interface ShownPage {
  width: number;
  height: number;
}

/** Each page's trim box as shown, from pdfinfo (qpdf fits the overlay page into the trim box). */
export async function shownPages(pdf: string, ctx: StepContext): Promise<ShownPage[]> {
  const { stdout } = await runProcess(popplerTool('pdfinfo'), ['-box', '-f', '1', '-l', '1000000', pdf], ctx);
  const pages = new Map<number, { box?: number[]; rot: number }>();
  for (const m of stdout.matchAll(/^Page\s+(\d+)\s+(TrimBox|rot):\s+(.+)$/gm)) {
    const page = pages.get(Number(m[1])) ?? { rot: 0 };
    if (m[2] === 'rot') page.rot = Number(m[3]);
    else page.box = m[3]!.trim().split(/\s+/).map(Number);
    pages.set(Number(m[1]), page);
  }
  return [...pages.keys()]
    .sort((a, b) => a - b)
    .map((n) => {
      const { box = [0, 0, 612, 792], rot } = pages.get(n)!;
      const w = Math.abs(box[2]! - box[0]!);
      const h = Math.abs(box[3]! - box[1]!);
      return rot % 180 === 0 ? { width: w, height: h } : { width: h, height: w };
    });
}

const FONT = 'font-family="DejaVu Sans, Noto Sans, sans-serif"';
const MARGIN = 28;

/** The watermark's font size when none is given: its line fills most of the page along its angle. */
function fittedSize(text: string, page: ShownPage, angle: number): number {
  const rad = (Math.abs(angle) * Math.PI) / 180;
  const along = Math.min(
    Math.cos(rad) > 1e-6 ? page.width / Math.cos(rad) : Number.POSITIVE_INFINITY,
    Math.sin(rad) > 1e-6 ? page.height / Math.sin(rad) : Number.POSITIVE_INFINITY,
  );
  // A bold sans glyph is about 0.65 em wide on average.
  return Math.max(8, Math.min(300, (0.75 * along) / (0.65 * [...text].length)));
}

function watermarkSvg(o: StampValues, page: ShownPage): string {
  if (o.watermark === undefined) return '';
  const angle = o.watermark_angle ?? 45;
  const size = o.watermark_size ?? fittedSize(o.watermark, page, angle);
  const cx = page.width / 2;
  const cy = page.height / 2;
  return `<text x="${cx}" y="${cy}" ${FONT} font-weight="bold" font-size="${size.toFixed(1)}" fill="${o.watermark_color ?? '#808080'}" fill-opacity="${o.watermark_opacity ?? 0.25}" text-anchor="middle" dominant-baseline="central" transform="rotate(${-angle} ${cx} ${cy})">${escapeXml(o.watermark)}</text>`;
}

function stampSvg(o: StampValues, page: ShownPage): string {
  if (o.stamp === undefined) return '';
  const text = o.stamp.toUpperCase();
  const size = 22;
  const w = text.length * size * 0.72 + 24;
  const h = size + 18;
  const x = page.width - MARGIN - w;
  const y = MARGIN;
  const red = ['rejected', 'void', 'confidential'].includes(o.stamp);
  const colour = red ? '#c62828' : o.stamp === 'approved' || o.stamp === 'paid' ? '#2e7d32' : '#1565c0';
  return `<g transform="rotate(-8 ${x + w / 2} ${y + h / 2})" fill="none" stroke="${colour}" stroke-opacity="0.85"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" stroke-width="3"/><text x="${x + w / 2}" y="${y + h / 2}" ${FONT} font-weight="bold" font-size="${size}" fill="${colour}" fill-opacity="0.85" stroke="none" text-anchor="middle" dominant-baseline="central">${text}</text></g>`;
}

function pageNumberSvg(o: StampValues, page: ShownPage, index: number, total: number): string {
  if (o.page_numbers !== true) return '';
  const start = o.page_numbers_start ?? 1;
  const text = (o.page_numbers_format ?? '{n}')
    .replaceAll('{n}', String(start + index))
    .replaceAll('{total}', String(start + total - 1));
  const [v, h] = (o.page_numbers_position ?? 'bottom-center').split('-') as ['top' | 'bottom', string];
  const size = 10;
  const x = h === 'left' ? MARGIN : h === 'right' ? page.width - MARGIN : page.width / 2;
  const anchor = h === 'left' ? 'start' : h === 'right' ? 'end' : 'middle';
  const y = v === 'top' ? MARGIN : page.height - MARGIN + size;
  return `<text x="${x}" y="${y}" ${FONT} font-size="${size}" fill="#000000" text-anchor="${anchor}">${escapeXml(text)}</text>`;
}

/** One page of the overlay as SVG, in points, the size the page is shown at. */
export function overlayPageSvg(o: StampValues, page: ShownPage, index: number, total: number): string {
  const { width, height } = page;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}pt" height="${height}pt" viewBox="0 0 ${width} ${height}">`,
    watermarkSvg(o, page),
    stampSvg(o, page),
    pageNumberSvg(o, page, index, total),
    '</svg>\n',
  ].join('');
}

/** Pages stamped in one conversion at most (each is an SVG file while the overlay is drawn). */
export const MAX_STAMPED_PAGES = 10_000;

/** Draws the overlay PDF, one page per page of `pdf`, and returns its path in the step's folder. */
export async function drawOverlay(pdf: string, o: StampValues, ctx: StepContext): Promise<string> {
  // The picture is checked before anything is drawn: a bad one fails the request at once.
  const picture = o.stamp_image === undefined ? undefined : await readStampPicture(o.stamp_image);
  const rsvg = findBinary(['rsvg-convert']);
  if (!rsvg)
    throw new FileconvError('CONVERT_FAILED', 'rsvg-convert (librsvg2-bin) is needed to draw on pages.');
  const pages = await shownPages(pdf, ctx);
  if (pages.length === 0) throw new FileconvError('MALFORMED_DOCUMENT', 'The PDF reports no pages.');
  if (pages.length > MAX_STAMPED_PAGES)
    throw new FileconvError(
      'OUTPUT_TOO_LARGE',
      `The PDF has ${pages.length} pages; at most ${MAX_STAMPED_PAGES} are drawn on in one conversion.`,
    );
  const svgs = await Promise.all(
    pages.map(async (page, i) => {
      const file = join(ctx.workDir, `overlay-${i + 1}.svg`);
      await writeFile(file, overlayPageSvg(o, page, i, pages.length));
      return file;
    }),
  );
  const output = join(ctx.workDir, 'overlay.pdf');
  await runProcess(rsvg, ['--format', 'pdf', '--output', output, ...svgs], ctx, { env: fontconfigEnv() });
  if (!picture) return output;

  // The picture goes on the overlay's pages as qpdf's own overlay, one page per page size: qpdf
  // makes each of those pages one form object, which every page of that size then shares (drawn
  // into each page's SVG, rsvg-convert would store the picture once per page).
  const drawn = await writeStampPictureSvgs(o, picture, pages, ctx);
  const pictures = join(ctx.workDir, 'stamp-pictures.pdf');
  await runProcess(rsvg, ['--format', 'pdf', '--output', pictures, ...drawn.svgs], ctx);
  const qpdf = findBinary(['qpdf']);
  if (!qpdf) throw new FileconvError('CONVERT_FAILED', 'qpdf is needed to stamp a picture.');
  const combined = join(ctx.workDir, 'overlay-with-picture.pdf');
  await runProcess(
    qpdf,
    [
      output,
      '--overlay',
      pictures,
      `--to=1-${pages.length}`,
      `--from=${drawn.from.join(',')}`,
      '--',
      combined,
    ],
    ctx,
  );
  ctx.log(
    `stamp picture (${picture.type}, ${picture.width} x ${picture.height}) drawn on ${pages.length} page(s)`,
  );
  return combined;
}

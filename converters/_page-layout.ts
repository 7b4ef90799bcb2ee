/**
 * Where a picture goes on a PDF page: its own size at its resolution, or fitted to a paper size
 * inside margins, as img2pdf lays pictures out. Sizes are in PDF points (1/72 inch).
 */

/** The options of a picture's way onto a PDF page: its resolution, and the paper it is fitted to. */
export const IMAGE_PAGE_OPTIONS = ['dpi', 'paper', 'fit', 'margin', 'landscape'];

/** The page options an image page honours (shared-options.ts: paper, fit, margin, landscape). */
export interface PageLayout {
  paper?: string;
  fit?: 'cover' | 'contain' | 'fill' | 'inside' | 'outside' | 'none';
  margin?: string;
  landscape?: boolean;
}

/** Where one picture is drawn: the page's size and the picture's box on it. */
export interface Placement {
  page: [number, number];
  x: number;
  y: number;
  width: number;
  height: number;
  /** The box outside which nothing is drawn (the paper inside its margins), when the picture overflows it. */
  clip?: [number, number, number, number];
}

/** Portrait sizes in points, as ISO 216 and ANSI give them. */
const PAPERS: Record<string, [number, number]> = {
  a3: [841.89, 1190.55],
  a4: [595.28, 841.89],
  a5: [419.53, 595.28],
  letter: [612, 792],
  legal: [612, 1008],
  tabloid: [792, 1224],
};

const POINTS_PER: Record<string, number> = { mm: 72 / 25.4, cm: 72 / 2.54, in: 72, px: 0.75 };

/** A CSS length (`10mm`, `0.5in`, `20px`) in points. */
function points(length: string): number {
  const unit = length.slice(-2).toLowerCase();
  return Number(length.slice(0, -2)) * (POINTS_PER[unit] ?? 0);
}

/** A paper size (`A4`, `Letter`, `210x297mm`) in points, portrait as given. */
export function paperPoints(paper: string): [number, number] {
  const named = PAPERS[paper.toLowerCase()];
  if (named) return named;
  const unit = paper.slice(-2);
  const [w = '0', h = '0'] = paper.slice(0, -2).split(/x/i);
  return [points(`${w}${unit}`), points(`${h}${unit}`)];
}

/** CSS margin shorthand in points: top, right, bottom, left. */
export function marginPoints(margin: string | undefined): [number, number, number, number] {
  if (!margin) return [0, 0, 0, 0];
  const [top = 0, right = top, bottom = top, left = right] = margin.split(' ').map(points);
  return [top, right, bottom, left];
}

const round = (n: number) => Number(n.toFixed(2));

/**
 * Places a picture of `w` x `h` points. Without a paper the page is the picture with the margins
 * around it. With one, the paper turns to the picture's orientation unless `landscape` says
 * which, and the picture is fitted into the paper inside the margins: `contain` (the default)
 * whole and as large as fits, `cover` filling it (the overflow cut off), `fill` stretched to it,
 * `inside` shrunk only when larger, `outside` grown only when smaller, `none` at its own size;
 * centred in every case.
 */
export function placePicture(w: number, h: number, layout: PageLayout): Placement {
  const [top, right, bottom, left] = marginPoints(layout.margin);
  if (!layout.paper) {
    return {
      page: [round(w + left + right), round(h + top + bottom)],
      x: round(left),
      y: round(bottom),
      width: round(w),
      height: round(h),
    };
  }
  let [pw, ph] = paperPoints(layout.paper);
  const wide = layout.landscape ?? w > h;
  if (wide !== pw > ph) [pw, ph] = [ph, pw];
  const bw = Math.max(1, pw - left - right);
  const bh = Math.max(1, ph - top - bottom);
  const contain = Math.min(bw / w, bh / h);
  const cover = Math.max(bw / w, bh / h);
  const scale: Record<NonNullable<PageLayout['fit']>, [number, number]> = {
    contain: [contain, contain],
    cover: [cover, cover],
    fill: [bw / w, bh / h],
    inside: [Math.min(1, contain), Math.min(1, contain)],
    outside: [Math.max(1, cover), Math.max(1, cover)],
    none: [1, 1],
  };
  const [sx, sy] = scale[layout.fit ?? 'contain'];
  const dw = w * sx;
  const dh = h * sy;
  const overflows = dw > bw + 0.01 || dh > bh + 0.01;
  return {
    page: [round(pw), round(ph)],
    x: round(left + (bw - dw) / 2),
    y: round(bottom + (bh - dh) / 2),
    width: round(dw),
    height: round(dh),
    clip: overflows ? [round(left), round(bottom), round(bw), round(bh)] : undefined,
  };
}

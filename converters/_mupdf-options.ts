import {
  bool,
  defineOption,
  like,
  num,
  OPERATION_ORDER,
  type OptionValues,
  oneOfNumbers,
} from '../src/engine/option-kit.js';

/**
 * The page operations MuPDF does (converters/mupdf.ts), and the job its script reads: every value
 * checked here, then handed over as JSON in a file, never on a command line.
 */

const NUMBER = String.raw`-?\d{1,5}(\.\d{1,3})?`;
const BOX = `${NUMBER},${NUMBER},${NUMBER},${NUMBER}`;
const PAGE_RANGE = String.raw`\d{1,6}(-\d{1,6})?`;
const ANGLE = '(90|180|270)';

/** x0,y0,x1,y1 in points, read as numbers. */
function readBox(text: string): [number, number, number, number] {
  const [x0, y0, x1, y1] = text.split(',').map(Number) as [number, number, number, number];
  return [x0, y0, x1, y1];
}

const boxHasArea = (text: string) => {
  const [x0, y0, x1, y1] = readBox(text);
  return x1 > x0 && y1 > y0;
};

/** A string option whose every box must have a width and a height. */
function boxes(pattern: RegExp, example: string, pick: (v: string) => string[]) {
  return like(pattern, example).refine((v) => pick(String(v)).every(boxHasArea), {
    error: 'each box must be x0,y0,x1,y1 with x1 > x0 and y1 > y0 (points, origin bottom-left)',
  });
}

const REDACT = { order: OPERATION_ORDER.redact };
const LAYOUT = { order: OPERATION_ORDER.layout };

export const MUPDF_OPTIONS = {
  redact_boxes: defineOption(
    boxes(new RegExp(`^(\\d{1,6}:)?${BOX}(;(\\d{1,6}:)?${BOX})*$`), '1:72,700,300,730', (v) =>
      v.split(';').map((b) => b.replace(/^\d+:/, '')),
    ),
    'redact boxes: page:x0,y0,x1,y1 in points from the bottom-left corner, several separated by ; (no page: every page); what is under them is removed, not only covered',
    REDACT,
  ),
  redact_text: defineOption(
    like(/^[^\p{Cc}|]{1,200}(\|[^\p{Cc}|]{1,200}){0,99}$/u, 'John Smith|ACME Ltd'),
    'redact every occurrence of these words, separated by | (any case), removed from the file and blacked out',
    REDACT,
  ),
  redact_regex: defineOption(
    like(/^[^\0\r\n]{1,500}$/, String.raw`\d{3}-\d{2}-\d{4}`),
    'redact what this regular expression matches on a line of text (Python syntax; (?i) for any case)',
    REDACT,
  ),
  rotate_pages: defineOption(
    like(new RegExp(`^${ANGLE}:${PAGE_RANGE}(,(${ANGLE}:)?${PAGE_RANGE})*$`), '90:1-3,180:5'),
    'turn chosen pages clockwise: angle:pages, a page list after an angle takes it (90:1-3,180:5)',
    { order: OPERATION_ORDER.rotatePages },
  ),
  remove_blank_pages: defineOption(
    bool(),
    'remove blank pages: pages with no ink, or no more than blank_threshold of it (scans)',
    { order: OPERATION_ORDER.removeBlank },
  ),
  blank_threshold: defineOption(
    num(0, 1),
    "with remove_blank_pages: the share of a page's area that may be inked (dust, noise of a scan) and still count as blank (default 0)",
    { order: OPERATION_ORDER.removeBlank },
  ),
  crop: defineOption(
    boxes(new RegExp(`^(content|${BOX})$`), '36,36,559,806', (v) => (v === 'content' ? [] : [v])),
    'crop every page: x0,y0,x1,y1 in points from the bottom-left corner, or content (to what the page shows)',
    { order: OPERATION_ORDER.crop },
  ),
  pages_per_sheet: defineOption(
    oneOfNumbers([2, 4, 6, 9]),
    'lay 2, 4, 6 or 9 pages on each sheet, in reading order, the sheet the size of the first page',
    LAYOUT,
  ),
  booklet: defineOption(
    bool(),
    'true: a saddle-stitched booklet, two pages a side in folding order (print both sides, fold in the middle)',
    { ...LAYOUT, excludes: { pages_per_sheet: 'a booklet is two pages a side' } },
  ),
};

type Values = OptionValues<typeof MUPDF_OPTIONS>;

/** Whether a request asks anything of MuPDF's step. */
export const wantsMupdf = (o: Record<string, unknown>) =>
  Object.keys(MUPDF_OPTIONS).some((n) => n !== 'blank_threshold' && o[n] !== undefined);

/** `90:1-3,180:5` as one turn per page, in the order given. */
export function pageTurns(text: string): { page: number; angle: number }[] {
  const turns: { page: number; angle: number }[] = [];
  let angle = 0;
  for (const part of text.split(',')) {
    const [a, range] = part.includes(':') ? part.split(':') : [String(angle), part];
    angle = Number(a);
    const [first, last = first] = range!.split('-').map(Number) as [number, number?];
    for (let p = Math.min(first, last!); p <= Math.max(first, last!); p++) turns.push({ page: p, angle });
  }
  return turns;
}

/** The job file of one run of the script. */
export function mupdfJob(input: string, output: string, o: Values): Record<string, unknown> {
  const job: Record<string, unknown> = { input, output };
  if (o.redact_boxes || o.redact_text || o.redact_regex) {
    job.redact = {
      boxes: (o.redact_boxes ?? '')
        .split(';')
        .filter(Boolean)
        .map((b) => {
          const [page, box] = b.includes(':') ? b.split(':') : [undefined, b];
          return { page: page === undefined ? null : Number(page), box: readBox(box!) };
        }),
      terms: (o.redact_text ?? '').split('|').filter((t) => t.trim() !== ''),
      regex: o.redact_regex,
    };
  }
  if (o.rotate_pages) job.rotate_pages = pageTurns(o.rotate_pages);
  if (o.remove_blank_pages) job.remove_blank = o.blank_threshold ?? 0;
  if (o.crop) job.crop = o.crop === 'content' ? 'content' : readBox(o.crop);
  if (o.pages_per_sheet) job.per_sheet = o.pages_per_sheet;
  if (o.booklet) job.booklet = true;
  return job;
}

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Sample PDFs for the page tools, made with MuPDF's Python binding (python3-fitz): the results are
 * checked with poppler's tools, never with the engine that made them.
 */
const MAKE = `
import sys, fitz
out = sys.argv[1]
jpg, png = sys.argv[2], sys.argv[3]

def text_page(doc, lines):
    page = doc.new_page(width=595, height=842)
    for i, (text, colour) in enumerate(lines):
        page.insert_text((72, 120 + 60 * i), text, fontsize=24, color=colour)
    return page

# Redaction: words, a number a pattern finds, and a blue square under a box.
doc = fitz.open()
page = text_page(doc, [("Secret name John Smith", (0, 0, 0)), ("Account 123-45-6789 here", (0, 0, 0))])
page.draw_rect(fitz.Rect(100, 442, 300, 542), color=(0, 0, 1), fill=(0, 0, 1))
doc.save(out + "/redact.pdf")

# Four pages: text, blank, a near-blank scan (grey paper, a few specks), text in red.
doc = fitz.open()
text_page(doc, [("First page", (0, 0, 0))])
doc.new_page(width=595, height=842)
scan = fitz.Pixmap(fitz.csGRAY, fitz.IRect(0, 0, 595, 842), False)
scan.set_rect(scan.irect, (238,))
for x, y in ((100, 100), (400, 300), (250, 700), (500, 800), (60, 500)):
    scan.set_rect(fitz.IRect(x, y, x + 3, y + 3), (20,))
doc.new_page(width=595, height=842).insert_image(fitz.Rect(0, 0, 595, 842), pixmap=scan)
text_page(doc, [("Last page by Jane Smith", (0.9, 0.1, 0.1))])
doc.save(out + "/four.pdf")

# Pictures: a JPEG on page 1, a PNG with transparency on page 3.
doc = fitz.open()
text_page(doc, [("Pictures", (0, 0, 0))]).insert_image(fitz.Rect(72, 200, 272, 350), filename=jpg)
doc.new_page(width=595, height=842)
text_page(doc, [("A logo", (0, 0, 0))]).insert_image(fitz.Rect(72, 200, 172, 300), filename=png)
doc.save(out + "/pictures.pdf")
`;

export interface Samples {
  redact: string;
  four: string;
  pictures: string;
}

/** Writes the samples into `dir`; `jpg` and `png` are the pictures to place. */
export function makeSamples(dir: string, jpg: string, png: string): Samples {
  execFileSync('/usr/bin/python3', ['-c', MAKE, dir, jpg, png], { stdio: 'pipe' });
  return {
    redact: join(dir, 'redact.pdf'),
    four: join(dir, 'four.pdf'),
    pictures: join(dir, 'pictures.pdf'),
  };
}

export const run = (tool: string, args: string[]) => execFileSync(tool, args, { encoding: 'utf8' });

export const pageCount = (pdf: string) => Number(/^Pages:\s+(\d+)/m.exec(run('pdfinfo', [pdf]))?.[1]);

/** Each page's boxes and rotation, as pdfinfo -box prints them. */
export function pageBoxes(pdf: string): { rot: number; media: number[]; crop: number[] }[] {
  const out = run('pdfinfo', ['-f', '1', '-l', String(pageCount(pdf)), '-box', pdf]);
  const boxes = (name: string) =>
    [...out.matchAll(new RegExp(`^Page\\s+\\d+ ${name}:\\s+(.+)$`, 'gm'))].map((m) =>
      m[1]!.trim().split(/\s+/).map(Number),
    );
  const rots = [...out.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
  const media = boxes('MediaBox');
  const crop = boxes('CropBox');
  return rots.map((rot, i) => ({ rot, media: media[i]!, crop: crop[i]! }));
}

/** A page rendered by pdftoppm: width, height, channels and the pixels. */
export interface Raster {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

export function render(pdf: string, page: number, dir: string, gray = false, dpi = 72): Raster {
  const base = join(dir, `render-${page}-${gray ? 'g' : 'c'}-${Date.now()}`);
  const f = String(page);
  run('pdftoppm', [
    '-r',
    String(dpi),
    '-f',
    f,
    '-l',
    f,
    '-singlefile',
    '-cropbox',
    ...(gray ? ['-gray'] : []),
    pdf,
    base,
  ]);
  const bytes = readFileSync(`${base}.${gray ? 'pgm' : 'ppm'}`);
  const m = /^P([56])\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'));
  if (!m) throw new Error('pdftoppm wrote no PNM');
  return {
    width: Number(m[2]),
    height: Number(m[3]),
    channels: m[1] === '6' ? 3 : 1,
    data: bytes.subarray(m[0].length),
  };
}

/** The largest difference between channels of one pixel: 0 for grey. */
export function maxChroma(r: Raster): number {
  let max = 0;
  for (let i = 0; i < r.data.length; i += 3) {
    const [a, b, c] = [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!];
    max = Math.max(max, Math.abs(a - b), Math.abs(b - c), Math.abs(a - c));
  }
  return max;
}

/** Pixels darker than 128 in a grey render. */
export const darkPixels = (r: Raster) => r.data.filter((v) => v < 128).length;

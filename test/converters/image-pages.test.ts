import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConversion } from '../../src/run/runner.js';
import { cacheDir } from '../corpus/fetch.js';
import { tempDir } from '../helpers/step.js';

/*
 * Pictures made by others (Debian packages and gdk-pixbuf's resolution tests, from the real-world
 * corpus: `npm run corpus`) put on PDF pages. Checked with poppler's pdfinfo (page size in points)
 * and pdfimages (encoding, pixel size, resolution), and file sizes against the pictures'.
 */

const files = join(cacheDir(), 'files');
const PIXBUF = join(files, 'upstream/gdk-pixbuf/gdk-pixbuf-2.42.10/tests');
const IMAGEIO = join(files, 'python3-imageio/usr/lib/python3/dist-packages/imageio/resources/images');
const IMAGING = join(
  files,
  'golang-github-disintegration-imaging-dev/usr/share/gocode/src/github.com/disintegration/imaging/testdata',
);
const GOFPDF = join(
  files,
  'golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/image',
);
const cached = existsSync(join(PIXBUF, 'dpi.jpeg')) && existsSync(join(IMAGEIO, 'astronaut.png'));
const NOT_CACHED = !cached;

async function toPdf(input: string, from: string, options: Record<string, unknown> = {}) {
  const dir = tempDir();
  const r = await runConversion({ input, from, to: 'pdf', outDir: dir, options });
  return r.files[0]!.path;
}

function pageSize(pdf: string): [number, number] {
  const m = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }));
  return [Number(m![1]), Number(m![2])];
}

/** pdfimages -list rows: type, width, height, encoding, x-ppi, y-ppi. */
function images(pdf: string) {
  return execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => {
      const c = l.trim().split(/\s+/);
      return {
        type: c[2],
        width: Number(c[3]),
        height: Number(c[4]),
        enc: c[8],
        xppi: Number(c[12]),
        yppi: Number(c[13]),
      };
    });
}

describe.skipIf(NOT_CACHED)('pictures on PDF pages (corpus files; npm run corpus)', () => {
  it('a JPEG is a page at its JFIF resolution, across and down, its bytes kept as DCT', async () => {
    const pdf = await toPdf(join(PIXBUF, 'dpi.jpeg'), 'jpg');
    // 48 x 48 pixels at 300 x 600 dpi.
    expect(pageSize(pdf)).toEqual([11.52, 5.76]);
    expect(images(pdf)).toEqual([
      { type: 'image', width: 48, height: 48, enc: 'jpeg', xppi: 300, yppi: 600 },
    ]);
  });

  it('a PNG is a page at its pHYs resolution; one that states none at 96 dpi', async () => {
    expect(pageSize(await toPdf(join(PIXBUF, 'dpi.png'), 'png'))).toEqual([11.52, 5.76]);
    const plain = await toPdf(join(IMAGING, 'branches.png'), 'png');
    // 600 x 400 pixels, no pHYs chunk: 96 dpi, not pixels taken as points.
    expect(pageSize(plain)).toEqual([450, 300]);
    expect(images(plain)[0]).toMatchObject({ width: 600, height: 400, xppi: 96, yppi: 96 });
  });

  it('a TIFF is a page at its resolution', async () => {
    // 1000 x 1000 pixels at 600 dpi.
    expect(pageSize(await toPdf(join(GOFPDF, 'golang-gopher.tiff'), 'tiff'))).toEqual([120, 120]);
  });

  it('dpi takes the picture at the resolution asked, over what it states', async () => {
    expect(pageSize(await toPdf(join(IMAGING, 'branches.png'), 'png', { dpi: 300 }))).toEqual([144, 96]);
  });

  it('a PNG is stored as its own compressed rows: the PDF is no larger than the picture and a few KB', async () => {
    const png = join(IMAGEIO, 'astronaut.png');
    const pdf = await toPdf(png, 'png');
    expect(statSync(pdf).size).toBeLessThanOrEqual(statSync(png).size + 4096);
    expect(images(pdf)).toEqual([
      { type: 'image', width: 512, height: 512, enc: 'image', xppi: 300, yppi: 300 },
    ]);
    // The pixels are the picture's: poppler's decoding of the page's image equals libvips' of the PNG.
    const dir = tempDir();
    execFileSync('pdfimages', ['-png', pdf, join(dir, 'img')]);
    const ours = execFileSync('compare', ['-metric', 'AE', png, join(dir, 'img-000.png'), 'null:'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    expect(ours.trim() || '0').toBe('0');
  });

  it('paper and margin fit the picture into the paper, turned to its orientation', async () => {
    const cat = join(IMAGEIO, 'chelsea.png'); // 451 x 300 pixels at 72 dpi
    const pdf = await toPdf(cat, 'png', { paper: 'A4', margin: '10mm' });
    expect(pageSize(pdf)).toEqual([841.89, 595.28]);
    // contain: the height fills the paper inside its margins (595.28 - 2 x 28.35 points).
    const [img] = images(pdf);
    expect(img!.yppi).toBeCloseTo((300 * 72) / (595.28 - 2 * 28.35), -1);
    const portrait = await toPdf(cat, 'png', { paper: 'A4', landscape: false, fit: 'none' });
    expect(pageSize(portrait)).toEqual([595.28, 841.89]);
    expect(images(portrait)[0]).toMatchObject({ xppi: 72, yppi: 72 });
  });
});

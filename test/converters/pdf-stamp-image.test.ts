import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/qpdf.js';
import { stampPictureUrl } from '../../src/core/stamp-picture.js';
import { parseOptions } from '../../src/engine/options.js';
import { loadConverters } from '../../src/engine/registry.js';
import { convert } from '../../src/index.js';
import { declaredOptions } from '../../src/plan/options.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';
import { gradientPng, pixelFloodPng, sizedPagesPdf, textPdf } from './_image-samples.js';

/**
 * A picture stamped on every page (stamp_image), checked with poppler and qpdf: pdfimages lists
 * it on each page, one object shared by the pages, the pixels of a rendered page change where it
 * goes and nowhere else; and every bad stamp picture is refused with the spec's code.
 */

const PAGES = ['Alpha page one', 'Bravo page two', 'Charlie page three'];

const urlOf = (path: string) => stampPictureUrl(readFileSync(path), path);

interface ImageRow {
  page: number;
  type: string;
  width: number;
  height: number;
  enc: string;
  object: number;
}

function images(pdf: string): ImageRow[] {
  return execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => {
      const c = l.trim().split(/\s+/);
      return {
        page: Number(c[0]),
        type: c[2]!,
        width: Number(c[3]),
        height: Number(c[4]),
        enc: c[8]!,
        object: Number(c[10]),
      };
    });
}

/** Page 1 rendered by pdftoppm at 36 dpi: its raw RGB pixels and size. */
async function render(pdf: string, dir: string, name: string) {
  const base = join(dir, name);
  execFileSync('pdftoppm', ['-r', '36', '-f', '1', '-l', '1', '-singlefile', '-png', pdf, base]);
  const { data, info } = await sharp(`${base}.png`).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** How many pixels differ, inside and outside a box given as shares of the page (x0, y0, x1, y1). */
function changes(
  a: { data: Buffer; width: number; height: number },
  b: { data: Buffer },
  box: [number, number, number, number],
): { inside: number; outside: number } {
  let inside = 0;
  let outside = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const i = (y * a.width + x) * 3;
      const differs = Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) > 30;
      if (!differs) continue;
      const u = x / a.width;
      const v = y / a.height;
      if (u >= box[0] && u <= box[2] && v >= box[1] && v <= box[3]) inside++;
      else outside++;
    }
  }
  return { inside, outside };
}

function checkClean(pdf: string): void {
  expect(spawnSync('qpdf', ['--check', pdf]).status).toBe(0);
}

describe('stamp_image: a picture on every page (rsvg-convert and qpdf)', () => {
  it('a PNG with transparency: on every page as one shared image with its soft mask, drawn where asked', async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, PAGES);
    const logo = await gradientPng(join(dir, 'logo.png'), 240, 120, true);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      stamp_image: urlOf(logo),
      stamp_image_position: 'top-right',
      stamp_image_width: 0.3,
    });
    const out = files[0]!;
    checkClean(out);
    const rows = images(out);
    const pictures = rows.filter((r) => r.type === 'image');
    expect(pictures.map((r) => r.page)).toEqual([1, 2, 3]);
    // Its own pixels, with the one-pixel edge librsvg pads a picture with so its border is not blurred.
    for (const r of pictures) {
      expect(r.width - 240).toBeGreaterThanOrEqual(0);
      expect(r.width - 240).toBeLessThanOrEqual(2);
      expect(r.height - 120).toBeLessThanOrEqual(2);
    }
    // The transparency is kept: a soft mask with each picture.
    expect(rows.filter((r) => r.type === 'smask').map((r) => r.page)).toEqual([1, 2, 3]);
    // One object for all pages, not a copy per page.
    expect(new Set(pictures.map((r) => r.object)).size).toBe(1);
    // The pages keep their text.
    const text = execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' });
    for (const line of PAGES) expect(text).toContain(line);

    const before = await render(pdf, dir, 'before');
    const after = await render(out, dir, 'after');
    // Top right, 30% of the width, 28 pt from the edges, on a 612 x 792 page.
    const box: [number, number, number, number] = [0.6, 0.02, 0.97, 0.17];
    const { inside, outside } = changes(before, after, box);
    expect(inside).toBeGreaterThan(100);
    expect(outside).toBe(0);
  });

  it('a JPEG, at half opacity in the centre of pages of different sizes: one picture per page size', async () => {
    const dir = tempDir();
    const pdf = await sizedPagesPdf(dir, [300, 300, 500]);
    const photo = join(dir, 'seal.jpg');
    await sharp(await gradientPng(join(dir, 'src.png'), 100, 100))
      .jpeg()
      .toFile(photo);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      stamp_image: urlOf(photo),
      stamp_image_position: 'center',
      stamp_image_opacity: 0.5,
      stamp_image_width: 0.2,
    });
    checkClean(files[0]!);
    const pictures = images(files[0]!).filter((r) => r.type === 'image');
    expect(pictures.map((r) => r.page)).toEqual([1, 2, 3]);
    // Pages 1 and 2 share a size, and so their picture; page 3 has its own.
    expect(pictures[0]!.object).toBe(pictures[1]!.object);
    expect(pictures[2]!.object).not.toBe(pictures[0]!.object);
  });

  it('an SVG drawn as vector art, where asked', async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, PAGES.slice(0, 1));
    const svg = join(dir, 'mark.svg');
    writeFileSync(
      svg,
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="#0050c8"/><circle cx="50" cy="25" r="20" fill="#ffd400"/></svg>',
    );
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { stamp_image: urlOf(svg) });
    checkClean(files[0]!);
    const before = await render(pdf, dir, 'before');
    const after = await render(files[0]!, dir, 'after');
    // Bottom right by default, a quarter of the page wide.
    const { inside, outside } = changes(before, after, [0.7, 0.8, 0.97, 0.97]);
    expect(inside).toBeGreaterThan(100);
    expect(outside).toBe(0);
  });

  it('goes with a watermark and page numbers in the same run', async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, PAGES);
    const logo = await gradientPng(join(dir, 'logo.png'), 60, 30);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      stamp_image: urlOf(logo),
      watermark: 'DRAFT',
      page_numbers: true,
    });
    const text = execFileSync('pdftotext', ['-raw', files[0]!, '-'], { encoding: 'utf8' }).replace(
      /\s+/g,
      '',
    );
    expect(text).toContain('DRAFT');
    expect(images(files[0]!).filter((r) => r.type === 'image')).toHaveLength(3);
  });
});

/**
 * A request's options are read before anything is filed (parseOptions, as the API, the CLI and
 * the library do); a step given options directly checks the picture again, with the same words.
 */
async function refused(url: string): Promise<string> {
  const specs = declaredOptions(await loadConverters());
  const early = await expectCode(
    Promise.resolve().then(() => parseOptions({ stamp_image: url }, specs)),
    'INVALID_REQUEST',
  );
  const pdf = await textPdf(tempDir(), ['Page']);
  const late = await expectCode(
    runStep(converter, 'pdf', 'pdf', pdf, { stamp_image: url }),
    'INVALID_REQUEST',
  );
  expect(early.message).toBe(late.message);
  return early.message;
}

describe('stamp_image: bad pictures are refused before anything is drawn', () => {
  it('a picture of 100,000 x 100,000 pixels: INVALID_REQUEST, from its header alone', async () => {
    const flood = pixelFloodPng(join(tempDir(), 'flood.png'));
    expect(await refused(urlOf(flood))).toMatch(
      /option stamp_image is 100000 x 100000 pixels, over the limit of 25 megapixels/,
    );
  });

  it('an SVG that refers to a file or a URL, or declares entities: INVALID_REQUEST', async () => {
    const dir = tempDir();
    const hostile = {
      file: '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="file:///etc/passwd" width="10" height="10"/></svg>',
      url: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="url(https://example.com/x.svg#p)"/></svg>',
      neighbour:
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="secret.png" width="10" height="10"/></svg>',
      css: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style>@import "https://example.com/a.css";</style></svg>',
      xxe: '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text y="5">&x;</text></svg>',
    };
    for (const [name, svg] of Object.entries(hostile)) {
      const path = join(dir, `${name}.svg`);
      writeFileSync(path, svg);
      expect(await refused(urlOf(path)), name).toMatch(
        /option stamp_image is an SVG .*must hold everything it draws/,
      );
    }
  });

  it('a text file named .png, a PNG named .jpg: INVALID_REQUEST, saying what the bytes are', async () => {
    const dir = tempDir();
    const fake = join(dir, 'logo.png');
    writeFileSync(fake, 'not a picture at all\n');
    expect(await refused(urlOf(fake))).toMatch(
      /option stamp_image was sent as PNG but its bytes are no PNG, JPEG or SVG picture/,
    );
    const misnamed = join(dir, 'real.jpg');
    writeFileSync(misnamed, readFileSync(await gradientPng(join(dir, 'real.png'), 10, 10)));
    expect(await refused(urlOf(misnamed))).toMatch(/was sent as JPG but its bytes are PNG/);
  });

  it('a damaged PNG: INVALID_REQUEST', async () => {
    const broken = join(tempDir(), 'broken.png');
    writeFileSync(
      broken,
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40)]),
    );
    expect(await refused(urlOf(broken))).toMatch(/option stamp_image is a damaged PNG/);
  });

  it('the option takes only a data: URL of a PNG, JPEG or SVG, of at most 1 MiB', async () => {
    const specs = declaredOptions(await loadConverters());
    for (const value of [
      'https://example.com/logo.png',
      '/etc/passwd',
      'data:text/html;base64,PGI+',
      'data:image/png;base64,' + 'A'.repeat(1_500_000),
    ]) {
      await expectCode(
        Promise.resolve().then(() => parseOptions({ stamp_image: value }, specs)),
        'INVALID_REQUEST',
      );
    }
    expect(() => stampPictureUrl(Buffer.from('x'), 'logo.gif')).toThrow(/a \.png, \.jpg or \.svg file/);
  });
});

describe('stamp_image from the library (stampImage: a path)', () => {
  it('stamps every page of the PDF written', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, PAGES.slice(0, 2));
    const logo = await gradientPng(join(dir, 'logo.png'), 80, 40, true);
    const { outputs } = await convert(pdf, { to: 'pdf', output: join(dir, 'stamped.pdf'), stampImage: logo });
    expect(
      images(outputs[0]!)
        .filter((r) => r.type === 'image')
        .map((r) => r.page),
    ).toEqual([1, 2]);
  });
});

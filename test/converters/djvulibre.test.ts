import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import djvulibre from '../../converters/djvulibre.js';
import { findBinary } from '../../src/run/binary.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';

const tools = ['ddjvu', 'djvutxt', 'c44', 'djvm', 'djvused', 'convert', 'pdfinfo', 'pdfimages'];
const missing = tools.filter((t) => !findBinary([t]));

/**
 * A two-page DjVu as scanning software writes one: each page a photo encoded by DjVuLibre's c44
 * (ImageMagick's built-in rose and logo pictures), bundled by djvm, the second page with a hidden
 * text layer as OCR leaves it.
 */
async function twoPageDjvu(): Promise<string> {
  const dir = tempDir('fileconv-djvu-');
  const pages: string[] = [];
  for (const picture of ['rose:', 'logo:']) {
    const jpg = join(dir, `${pages.length}.jpg`);
    await execa('convert', [picture, jpg]);
    const page = join(dir, `${pages.length}.djvu`);
    await execa('c44', [jpg, page]);
    pages.push(page);
  }
  const book = join(dir, 'book.djvu');
  await execa('djvm', ['-c', book, ...pages]);
  const layer = join(dir, 'text.txt');
  const { width, height } = await sharp(join(dir, '1.jpg')).metadata();
  writeFileSync(
    layer,
    `(page 0 0 ${width} ${height} (line 0 0 ${width} ${height} "ImageMagick wizard logo"))\n`,
  );
  await execa('djvused', [book, '-e', `select 2; set-txt ${layer}`, '-s']);
  return book;
}

describe.skipIf(missing.length > 0)(
  `djvulibre converter (needs ${missing.join(', ') || 'nothing more'})`,
  () => {
    it('renders every page to a PDF page holding it as a picture at its own size', async () => {
      const { files } = await runStep(djvulibre, 'djvu', 'pdf', await twoPageDjvu());
      const info = await execa('pdfinfo', [files[0]!]);
      expect(info.stdout).toMatch(/^Pages:\s+2$/m);
      const images = (await execa('pdfimages', ['-list', files[0]!])).stdout.split('\n').slice(2);
      // rose: is 70 x 46, logo: 640 x 480.
      expect(images.map((l) => l.trim().split(/\s+/).slice(3, 5).join('x'))).toEqual(['70x46', '640x480']);
    });

    it('writes a multi-page TIFF, and the chosen pages only', async () => {
      const book = await twoPageDjvu();
      const all = await runStep(djvulibre, 'djvu', 'tiff', book);
      expect((await sharp(all.files[0]!).metadata()).pages).toBe(2);
      const second = await runStep(djvulibre, 'djvu', 'tiff', book, { pages: '2' });
      const meta = await sharp(second.files[0]!).metadata();
      expect([meta.pages, meta.width, meta.height]).toEqual([1, 640, 480]);
    });

    it('reads the hidden text layer, and asks for OCR where a page has none', async () => {
      const book = await twoPageDjvu();
      const { files } = await runStep(djvulibre, 'djvu', 'txt', book);
      expect(readFileSync(files[0]!, 'utf8')).toContain('ImageMagick wizard logo');
      await expectCode(runStep(djvulibre, 'djvu', 'txt', book, { pages: '1' }), 'NEEDS_OCR');
    });

    it('reports bytes that are no DjVu as MALFORMED_DOCUMENT', async () => {
      const broken = join(tempDir(), 'broken.djvu');
      writeFileSync(broken, Buffer.concat([Buffer.from('AT&TFORM'), randomBytes(400)]));
      await expectCode(runStep(djvulibre, 'djvu', 'pdf', broken), 'MALFORMED_DOCUMENT');
    });
  },
);

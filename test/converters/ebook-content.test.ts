import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import calibre from '../../converters/calibre.js';
import pandoc from '../../converters/pandoc.js';
import { findBinary } from '../../src/run/binary.js';
import { runConversion } from '../../src/run/runner.js';
import { fileScopedDir, pdfText, zipEntries } from '../helpers/office.js';

/*
 * A real EPUB, written by pandoc from Markdown with two pictures, an equation, a table and a link,
 * converted as a user would (the planner picks the route) to PDF, DOCX and HTML: every picture,
 * the equation drawn as math (never its TeX source), the table's cells and the link must be in
 * the output, checked with poppler, qpdf and the containers' own parts.
 */

const fixtures = fileScopedDir('fileconv-ebook-content-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());
const ready = (await calibre.probe()).ok && (await pandoc.probe()).ok && findBinary(['qpdf']) !== undefined;

const BOOK = `---
title: Harbour Notes
author: A. Keeper
lang: en
---

# Tides

Read the [tide tables](https://example.org/tides) before sailing.

![Chart of the bay](chart.png)

The wave energy is $$E = \\int_{0}^{\\infty} \\rho g \\, h^{2} \\, dx$$ for a wave of height h.

# Boats

| Boat | Length |
|------|--------|
| Skiff | 4 m |
| Ketch | 12 m |

![The lighthouse](lighthouse.jpg)
`;

let epub: string;

async function convert(to: 'pdf' | 'docx' | 'html'): Promise<string> {
  const result = await runConversion({ input: epub, from: 'epub', to, outDir: dir, baseName: `book-${to}` });
  return result.files[0]!.path;
}

/** Image objects of a PDF larger than an icon (a broken-image mark is 14x16), as width x height. */
function pdfPictures(pdf: string): string[] {
  const list = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' });
  return list
    .split('\n')
    .map((l) => /^\s*\d+\s+\d+\s+image\s+(\d+)\s+(\d+)/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) > 20 && Number(m[2]) > 20)
    .map((m) => `${m[1]}x${m[2]}`);
}

describe.skipIf(!ready)(
  'an EPUB with pictures, math, a table and a link (skipped: needs calibre, pandoc, qpdf)',
  () => {
    beforeAll(async () => {
      await sharp({ create: { width: 320, height: 200, channels: 3, background: '#2b6cb0' } })
        .png()
        .toFile(join(dir, 'chart.png'));
      await sharp({ create: { width: 240, height: 300, channels: 3, background: '#c05621' } })
        .jpeg()
        .toFile(join(dir, 'lighthouse.jpg'));
      writeFileSync(join(dir, 'book.md'), BOOK);
      epub = join(dir, 'book.epub');
      // pandoc's EPUB writer with MathML: how books carry equations.
      execFileSync('pandoc', ['book.md', '-o', epub, '--mathml'], { cwd: dir });
    }, 60_000);

    it('to PDF keeps every picture, draws the equation, and keeps the table and the link', async () => {
      const pdf = await convert('pdf');
      expect(pdfPictures(pdf).sort()).toEqual(['240x300', '320x200']);
      const text = pdfText(pdf).replace(/\s+/g, ' ');
      expect(text).not.toMatch(/\\int|\\rho|\$\$/);
      expect(text).toContain('∫');
      for (const cell of ['Skiff', 'Ketch', '12', 'tide tables']) expect(text).toContain(cell);
      const qdf = execFileSync('qpdf', ['--qdf', '--object-streams=disable', pdf, '-'], { maxBuffer: 64e6 });
      expect(qdf.toString('latin1')).toContain('https://example.org/tides');
    }, 180_000);

    it('to DOCX keeps every picture, the table and the link', async () => {
      const parts = await zipEntries(await convert('docx'));
      const media = [...parts.keys()].filter((n) => /^word\/media\/.+\.(png|jpe?g)$/i.test(n));
      expect(media).toHaveLength(2);
      const body = parts.get('word/document.xml')!.toString('utf8');
      expect(body).toContain('<w:tbl>');
      expect(body).toContain('Ketch');
      const rels = parts.get('word/_rels/document.xml.rels')!.toString('utf8');
      expect(rels).toContain('https://example.org/tides');
    }, 180_000);

    it('to HTML carries its pictures inside the page and the equation as MathML', async () => {
      const html = readFileSync(await convert('html'), 'utf8');
      expect(html.match(/<img[^>]+src="data:image\/(png|jpeg);base64,/g)).toHaveLength(2);
      expect(html).toMatch(/<math[\s>]/);
      expect(html).toContain('href="https://example.org/tides"');
      expect(html).toMatch(/<table[\s>]/);
    }, 120_000);
  },
);

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/ocrmypdf.js';
import { runConversion } from '../../src/run/runner.js';
import { tempDir } from '../helpers/step.js';
import { textPdf } from './_image-samples.js';

const WORDS = ['Invoice', 'number', 'seventeen', 'delivered', 'warehouse', 'Tuesday', 'morning', 'signature'];

/** A scan: the words drawn into a 300 dpi page picture, no text anywhere but in the pixels. */
async function scannedPage(dir: string): Promise<string> {
  const lines = [WORDS.slice(0, 4).join(' '), WORDS.slice(4).join(' ')];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2480" height="1200"><rect width="100%" height="100%" fill="white"/>${lines
    .map((l, i) => `<text x="150" y="${300 + i * 200}" font-family="DejaVu Serif" font-size="90">${l}</text>`)
    .join('')}</svg>`;
  const png = join(dir, 'scan.png');
  const page = sharp(Buffer.from(svg)).flatten({ background: 'white' }).png();
  writeFileSync(png, await page.withMetadata({ density: 300 }).toBuffer());
  return png;
}

const pdfText = (path: string) => execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' });

/** The share of the page's words found in the text, by whole words. */
function recall(text: string): number {
  const found = new Set(text.toLowerCase().split(/\W+/));
  return WORDS.filter((w) => found.has(w.toLowerCase())).length / WORDS.length;
}

describe('ocrmypdf converter', () => {
  it('probes OCRmyPDF', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('makes a scanned PDF searchable, its page picture kept', async () => {
    const dir = tempDir();
    const scan = await runConversion({
      input: await scannedPage(dir),
      from: 'png',
      to: 'pdf',
      outDir: join(dir, 'a'),
    });
    const imageOnly = scan.files[0]!.path;
    expect(recall(pdfText(imageOnly))).toBe(0);
    const result = await runConversion({
      input: imageOnly,
      from: 'pdf',
      to: 'pdf',
      outDir: join(dir, 'b'),
      options: { ocr: true, lang: 'eng' },
    });
    expect(result.plan.steps.map((s) => s.engines[0])).toEqual(['ocrmypdf']);
    const searchable = result.files[0]!.path;
    expect(recall(pdfText(searchable))).toBeGreaterThanOrEqual(0.9);
    const images = (pdf: string) =>
      execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' }).trim().split('\n').length - 2;
    expect(images(searchable)).toBe(images(imageOnly));
    expect(images(searchable)).toBeGreaterThan(0);
    expect(execFileSync('qpdf', ['--check', searchable], { encoding: 'utf8' })).toMatch(
      /No syntax or stream encoding errors/,
    );
  });

  it('turns a picture into a searchable PDF in one step, with ocr', async () => {
    const dir = tempDir();
    const tried: string[] = [];
    const result = await runConversion({
      input: await scannedPage(dir),
      from: 'png',
      to: 'pdf',
      outDir: join(dir, 'out'),
      options: { ocr: true },
      onEvent: (e) => {
        if (e.kind === 'engine-try') tried.push(e.message.split(':')[0]!);
      },
    });
    // The step's OCR engine is tried first when OCR is asked for; it did the work.
    expect(tried).toEqual(['ocrmypdf']);
    expect(recall(pdfText(result.files[0]!.path))).toBeGreaterThanOrEqual(0.9);
  });

  it('OCR and a lossy compression in one request: OCRmyPDF reads, then Ghostscript compresses', async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, ['Only page']);
    const result = await runConversion({
      input: pdf,
      from: 'pdf',
      to: 'pdf',
      outDir: join(dir, 'out'),
      options: { compress: 'ebook', ocr: true },
    });
    expect(result.plan.steps.map((s) => s.engines[0])).toEqual(['ocrmypdf', 'ghostscript']);
    expect(pdfText(result.files[0]!.path)).toContain('Only page');
  });

  it('leaves pages that already have text as they were', async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, ['Alpha page one', 'Bravo page two']);
    const result = await runConversion({
      input: pdf,
      from: 'pdf',
      to: 'pdf',
      outDir: join(dir, 'out'),
      options: { ocr: true },
    });
    expect(pdfText(result.files[0]!.path)).toMatch(/Alpha page one[\s\S]*Bravo page two/);
  });
  it('a JPEG scan made searchable keeps the resolution it states', async () => {
    const dir = tempDir();
    const jpg = join(dir, 'scan.jpg');
    // Made by ImageMagick, not by this project: a 200 dpi JPEG (JFIF density) of two lines of words.
    execFileSync('convert', [
      '-size',
      '1700x500',
      'xc:white',
      '-font',
      'DejaVu-Serif',
      '-pointsize',
      '48',
      '-draw',
      `text 80,180 '${WORDS.slice(0, 4).join(' ')}'`,
      '-draw',
      `text 80,330 '${WORDS.slice(4).join(' ')}'`,
      '-units',
      'PixelsPerInch',
      '-density',
      '200',
      '-quality',
      '90',
      jpg,
    ]);
    const result = await runConversion({
      input: jpg,
      from: 'jpg',
      to: 'pdf',
      outDir: join(dir, 'o'),
      options: { ocr: true },
    });
    const pdf = result.files[0]!.path;
    expect(recall(pdfText(pdf))).toBeGreaterThanOrEqual(0.9);
    // 1700 x 500 pixels at 200 dpi: 612 x 180 points, not 300 dpi's 408 x 120.
    expect(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })).toMatch(/Page size:\s+612 x 180 pts/);
    const row = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' })
      .split('\n')[2]!
      .trim()
      .split(/\s+/);
    expect([row[8], row[12], row[13]]).toEqual(['jpeg', '200', '200']);
  });
});

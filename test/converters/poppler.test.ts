import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/poppler.js';
import sharpConverter from '../../converters/sharp.js';
import { expectCode, runStep, stepContext, tempDir } from '../helpers/step.js';
import { encryptedPdf, sizedPagesPdf, sniff, textPdf } from './_image-samples.js';

describe('poppler converter', () => {
  it('probes the poppler tools', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('extracts text, for all pages or a selection', async () => {
    const pdf = await textPdf(tempDir(), ['Alpha page one', 'Bravo page two', 'Charlie page three']);
    const all = await runStep(converter, 'pdf', 'txt', pdf);
    const text = readFileSync(all.files[0]!, 'utf8');
    expect(text).toMatch(/Alpha page one[\s\S]*Bravo page two[\s\S]*Charlie page three/);
    const some = await runStep(converter, 'pdf', 'txt', pdf, { pages: '1,3' });
    const picked = readFileSync(some.files[0]!, 'utf8');
    expect(picked).toContain('Alpha');
    expect(picked).toContain('Charlie');
    expect(picked).not.toContain('Bravo');
  });

  it('writes one HTML page with the text', async () => {
    const pdf = await textPdf(tempDir(), ['Alpha page one', 'Bravo page two']);
    const { files } = await runStep(converter, 'pdf', 'html', pdf);
    expect(files).toHaveLength(1);
    const html = readFileSync(files[0]!, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('Alpha page one');
    expect(html).toContain('Bravo page two');
  });

  it('renders pages as PNG files in page order, past nine pages', async () => {
    const widths = Array.from({ length: 12 }, (_, i) => 100 + i * 20);
    const pdf = await sizedPagesPdf(tempDir(), widths);
    const edge = converter.edges.find((e) => e.to === 'png')!;
    expect(edge.multiOutput).toBe(true);
    const ctx = stepContext();
    const outDir = tempDir();
    const { files } = await converter.run({ edge, input: pdf, outDir, options: { dpi: 72 } }, ctx);
    expect(files).toHaveLength(12);
    for (const [i, file] of files.entries()) {
      expect(sniff(file)).toBe('png');
      expect((await sharp(file).metadata()).width).toBe(widths[i]);
    }
    expect(ctx.progressSeen.length).toBeGreaterThanOrEqual(12);
    expect(ctx.progressSeen.at(-1)).toBe(1);
  });

  it('renders selected pages as JPEG at a dpi', async () => {
    const pdf = await sizedPagesPdf(tempDir(), [144, 288, 432]);
    const { files } = await runStep(converter, 'pdf', 'jpg', pdf, { pages: '1,3', dpi: 36, quality: 70 });
    expect(files.map(sniff)).toEqual(['jpg', 'jpg']);
    expect((await sharp(files[0]!).metadata()).width).toBe(72);
    expect((await sharp(files[1]!).metadata()).width).toBe(216);
  });

  it('refuses pages that would rasterise too large', async () => {
    const pdf = await sizedPagesPdf(tempDir(), [14_400]);
    const e = await expectCode(runStep(converter, 'pdf', 'png', pdf, { dpi: 600 }), 'OUTPUT_TOO_LARGE');
    expect(e.message).toMatch(/Page 1 would be 120000 x 834 pixels/);
  });

  it('asks for OCR when the PDF has no text layer', async () => {
    const dir = tempDir();
    // A "scan": text drawn into pixels, wrapped in a PDF as an image.
    const png = join(dir, 'scan.png');
    await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100"><rect width="400" height="100" fill="white"/><text x="10" y="60" font-size="40">Scanned words</text></svg>',
      ),
    )
      .png()
      .toFile(png);
    const scan = await runStep(sharpConverter, 'png', 'pdf', png);
    await expectCode(runStep(converter, 'pdf', 'txt', scan.files[0]!), 'NEEDS_OCR');
    // The same file still renders to pages.
    const pages = await runStep(converter, 'pdf', 'png', scan.files[0]!);
    expect(pages.files).toHaveLength(1);
  });

  it('tells encrypted and damaged PDFs apart', async () => {
    const dir = tempDir();
    const locked = await encryptedPdf(await textPdf(dir, ['Secret text']), join(dir, 'locked.pdf'));
    await expectCode(runStep(converter, 'pdf', 'txt', locked), 'ENCRYPTED_DOCUMENT');
    await expectCode(runStep(converter, 'pdf', 'png', locked), 'ENCRYPTED_DOCUMENT');
    const garbage = join(dir, 'garbage.pdf');
    writeFileSync(garbage, 'this is not a pdf at all');
    await expectCode(runStep(converter, 'pdf', 'txt', garbage), 'MALFORMED_DOCUMENT');
    const broken = join(dir, 'broken.pdf');
    writeFileSync(broken, '%PDF-1.4\n1 0 obj << /Type /Catalog >>\nnothing else here\n');
    await expectCode(runStep(converter, 'pdf', 'png', broken), 'MALFORMED_DOCUMENT');
  });

  it('refuses a page selection outside the document', async () => {
    const pdf = await textPdf(tempDir(), ['Only page']);
    await expectCode(runStep(converter, 'pdf', 'txt', pdf, { pages: '5-6' }), 'INVALID_REQUEST');
  });
});

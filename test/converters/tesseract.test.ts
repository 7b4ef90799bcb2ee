import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tesseract from '../../converters/tesseract.js';
import { loadConverters } from '../../src/engine/registry.js';
import { planConversion } from '../../src/plan/graph.js';
import { runStep, stepContext, tempDir } from '../helpers/step.js';

const TEXT_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="200"><rect width="100%" height="100%" fill="white"/>' +
  '<text x="40" y="125" font-family="sans-serif" font-size="72" fill="black">HELLO WORLD</text></svg>';

const images: Record<string, string> = {};
let fixtures: string;

beforeAll(async () => {
  fixtures = mkdtempSync(join(tmpdir(), 'fileconv-ocr-'));
  const base = sharp(Buffer.from(TEXT_SVG)).flatten({ background: '#ffffff' });
  const encoders: Record<string, (s: Sharp) => Sharp> = {
    png: (s) => s.png(),
    jpg: (s) => s.jpeg({ quality: 90 }),
    tiff: (s) => s.tiff(),
    webp: (s) => s.webp({ quality: 90 }),
    gif: (s) => s.gif(),
  };
  for (const [format, encode] of Object.entries(encoders)) {
    images[format] = join(fixtures, `text.${format}`);
    await encode(base.clone()).toFile(images[format]!);
  }
});

afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

/** A PDF of PostScript-drawn pages, one line of text each. */
function pdfOf(lines: string[], extraArgs: string[] = []): string {
  const ps = join(tempDir(), 'pages.ps');
  const body = lines.map((l) => `72 600 moveto (${l}) show showpage`).join('\n');
  writeFileSync(ps, `%!PS\n/Helvetica findfont 48 scalefont setfont\n${body}\n`);
  const pdf = join(tempDir(), 'pages.pdf');
  execFileSync('gs', [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfwrite',
    ...extraArgs,
    '-o',
    pdf,
    ps,
  ]);
  return pdf;
}

describe('tesseract converter', () => {
  it('probes tesseract', async () => {
    const p = await tesseract.probe();
    expect(p.ok).toBe(true);
    expect(p.version).toMatch(/^\d/);
  });

  it.each(['png', 'jpg', 'tiff', 'gif', 'webp'])('reads the text in a %s image', async (from) => {
    const { files } = await runStep(tesseract, from, 'txt', images[from]!);
    expect(readFileSync(files[0]!, 'utf8')).toMatch(/HELLO\s+WORLD/);
  });

  it('makes a searchable PDF from an image', async () => {
    const { files } = await runStep(tesseract, 'png', 'pdf', images.png!, { dpi: 150 });
    expect(readFileSync(files[0]!).subarray(0, 5).toString()).toBe('%PDF-');
    expect(execFileSync('pdftotext', [files[0]!, '-'], { encoding: 'utf8' })).toMatch(/HELLO\s+WORLD/);
  });

  it('OCRs the selected pages of a PDF, in order, with progress', async () => {
    const pdf = pdfOf(['HELLO PAGE ONE', 'SECOND PAGE TEXT', 'THIRD PAGE HERE']);
    const ctx = stepContext();
    const edge = tesseract.edges.find((e) => e.from === 'pdf' && e.to === 'txt')!;
    const outDir = tempDir();
    const { files } = await tesseract.run(
      { edge, input: pdf, outDir, options: { pages: '2-3', dpi: 150 } },
      ctx,
    );
    const text = readFileSync(files[0]!, 'utf8');
    expect(text).toContain('SECOND PAGE');
    expect(text).toContain('THIRD PAGE');
    expect(text).not.toContain('PAGE ONE');
    expect(text.indexOf('SECOND')).toBeLessThan(text.indexOf('THIRD'));
    expect(ctx.progressSeen).toEqual([0.5, 1]);
  });

  it('pdf to txt OCR is costlier than a text-layer extraction would be', () => {
    const edge = tesseract.edges.find((e) => e.from === 'pdf' && e.to === 'txt')!;
    expect(edge.family).toBe('ocr');
    expect(edge.cost).toBeGreaterThan(20);
  });

  it.each(['png', 'jpg', 'webp'])('is the planned engine for %s to txt', async (from) => {
    const plan = planConversion(from, 'txt', await loadConverters());
    expect(plan?.steps.map((s) => s.engines[0])).toEqual(['tesseract']);
    expect(plan?.family).toBe('ocr');
  });

  it('a password-protected PDF is ENCRYPTED_DOCUMENT', async () => {
    const pdf = pdfOf(
      ['SECRET'],
      ['-sOwnerPassword=owner', '-sUserPassword=user', '-dEncryptionR=3', '-dKeyLength=128'],
    );
    await expect(runStep(tesseract, 'pdf', 'txt', pdf)).rejects.toMatchObject({ code: 'ENCRYPTED_DOCUMENT' });
  });

  it('a damaged PDF is MALFORMED_DOCUMENT', async () => {
    const pdf = join(tempDir(), 'bad.pdf');
    writeFileSync(pdf, '%PDF-1.4\nthis is not really a pdf\n');
    await expect(runStep(tesseract, 'pdf', 'txt', pdf)).rejects.toMatchObject({ code: 'MALFORMED_DOCUMENT' });
  });

  it('a file list posing as an image is refused before tesseract reads the files it names', async () => {
    const list = join(tempDir(), 'list.png');
    writeFileSync(list, `${images.png}\n`);
    await expect(runStep(tesseract, 'png', 'txt', list)).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });

  it('a truncated image is MALFORMED_DOCUMENT', async () => {
    const broken = join(tempDir(), 'broken.png');
    writeFileSync(broken, readFileSync(images.png!).subarray(0, 60));
    await expect(runStep(tesseract, 'png', 'txt', broken)).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });

  it('refuses a language that is not installed', async () => {
    await expect(runStep(tesseract, 'png', 'txt', images.png!, { lang: 'xyz' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/xyz.*not installed/),
    });
  });
});

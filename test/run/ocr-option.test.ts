import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/errors/index.js';
import { runConversion } from '../../src/run/runner.js';
import type { RunEvent } from '../../src/run/types.js';
import { tempDir } from '../helpers/step.js';

/** A PDF that is one picture of text, with no text layer: what a scanner makes. */
async function scannedPdf(dir: string): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="300">
    <rect width="100%" height="100%" fill="white"/>
    <text x="60" y="190" font-family="DejaVu Sans" font-size="110" fill="black">INVOICE 42</text></svg>`;
  const png = join(dir, 'scan.png');
  await sharp(Buffer.from(svg)).png().toFile(png);
  const { files } = await runConversion({ input: png, from: 'png', to: 'pdf', outDir: join(dir, 'pdf') });
  return files[0]!.path;
}

describe('pdf to txt and the ocr option', () => {
  it('answers NEEDS_OCR for a scan without the option, without running OCR', async () => {
    const dir = tempDir();
    const pdf = await scannedPdf(dir);
    const events: RunEvent[] = [];
    const run = runConversion({
      input: pdf,
      from: 'pdf',
      to: 'txt',
      outDir: join(dir, 'out'),
      onEvent: (e) => events.push(e),
    });
    await expect(run).rejects.toSatisfy((e) => e instanceof FileconvError && e.code === 'NEEDS_OCR');
    expect(events.some((e) => e.message.startsWith('tesseract'))).toBe(false);
  });

  it('reads the scan with OCR when asked to', async () => {
    const dir = tempDir();
    const pdf = await scannedPdf(dir);
    const events: RunEvent[] = [];
    const { files } = await runConversion({
      input: pdf,
      from: 'pdf',
      to: 'txt',
      options: { ocr: true, lang: 'eng' },
      outDir: join(dir, 'out'),
      onEvent: (e) => events.push(e),
    });
    expect(readFileSync(files[0]!.path, 'utf8')).toMatch(/INVOICE\s*42/);
    expect(events.find((e) => e.kind === 'engine-try')?.message).toMatch(/^tesseract/);
  });

  it('refuses a non-boolean ocr option', async () => {
    const dir = tempDir();
    const run = runConversion({
      input: join(dir, 'missing.pdf'),
      from: 'pdf',
      to: 'txt',
      options: { ocr: 'yes' },
      outDir: join(dir, 'out'),
    });
    await expect(run).rejects.toSatisfy((e) => e instanceof FileconvError && e.code === 'INVALID_REQUEST');
  });
});

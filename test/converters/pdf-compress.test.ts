import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowserPool } from '../../converters/chromium/pool.js';
import chromium from '../../converters/chromium.js';
import { runConversion } from '../../src/run/runner.js';
import type { RunEvent } from '../../src/run/types.js';
import { fileScopedDir } from '../helpers/office.js';
import { runStep, tempDir } from '../helpers/step.js';

const WORDS = 'Quarterly inspection report for the northern warehouse and its loading docks';

const scanDir = fileScopedDir('fileconv-compress-scan-');
afterAll(scanDir.cleanup);
let scanned: Promise<string> | undefined;

/**
 * A scan-like page: a page-wide photo of noise at about 265 dpi (over the 225 at which
 * Ghostscript's ebook preset resamples to 150) under a line of real text. Made once per file: the
 * tests only read it.
 */
function scannedLikePdf(): Promise<string> {
  scanned ??= makeScannedLikePdf(scanDir.dir);
  return scanned;
}

async function makeScannedLikePdf(dir: string): Promise<string> {
  const photo = await sharp({
    create: {
      width: 2200,
      height: 1400,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  const html = join(dir, 'scan.html');
  writeFileSync(
    html,
    `<!DOCTYPE html><html><body style="margin:0"><p style="font:16px sans-serif">${WORDS}</p><img style="width:100%" src="data:image/png;base64,${photo.toString('base64')}"></body></html>`,
  );
  const { files } = await runStep(chromium, 'html', 'pdf', html);
  await closeBrowserPool();
  // The step's own folder goes after this test: the scan is kept beside its page.
  const scan = join(dir, 'scan.pdf');
  copyFileSync(files[0]!, scan);
  return scan;
}

function text(path: string): string {
  return execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}

function type3Fonts(path: string): number {
  return execFileSync('pdffonts', [path], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => / Type 3 /.test(l)).length;
}

/** Ghostscript's pdfwrite run by hand, as a user would, for a baseline of the same engine. */
function gsPdfwrite(preset: string, output: string, ...input: string[]): void {
  execFileSync('gs', [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfwrite',
    `-dPDFSETTINGS=/${preset}`,
    `-sOutputFile=${output}`,
    ...input,
  ]);
}

/** pdf-pdf through the runner with the given options. */
function operate(
  input: string,
  outDir: string,
  options: Record<string, unknown>,
  onEvent?: (e: RunEvent) => void,
) {
  return runConversion({ input, from: 'pdf', to: 'pdf', outDir, options, onEvent });
}

describe('compress option on pdf-pdf', () => {
  it('ebook resamples pictures through Ghostscript: smaller, words kept, no Type 3 fonts, sound', async () => {
    const dir = tempDir();
    const pdf = await scannedLikePdf();
    const events: RunEvent[] = [];
    const result = await operate(pdf, join(dir, 'out'), { compress: 'ebook' }, (e) => events.push(e));
    const out = result.files[0]!.path;
    expect(result.plan.steps[0]!.engines[0]).toBe('ghostscript');
    expect(statSync(out).size).toBeLessThan(statSync(pdf).size / 2);
    expect(text(out)).toContain(WORDS);
    expect(type3Fonts(out)).toBe(type3Fonts(pdf));
    expect(spawnSync('qpdf', ['--check', out]).status).toBe(0);
    // Ghostscript's own /ebook on the same file, for the ratio the docs give.
    const direct = join(dir, 'direct.pdf');
    gsPdfwrite('ebook', direct, pdf);
    expect(statSync(out).size).toBeLessThanOrEqual(statSync(direct).size * 1.05);
    expect(events.map((e) => e.message).join('\n')).toMatch(/compressed from \d+ to \d+ bytes/);
  });

  it('never returns a larger file: an already small PDF comes back as it was', async () => {
    const dir = tempDir();
    const small = join(dir, 'small.pdf');
    gsPdfwrite(
      'screen',
      small,
      '-c',
      '/Helvetica findfont 12 scalefont setfont 72 700 moveto (tiny) show showpage',
    );
    const result = await operate(small, join(dir, 'out'), { compress: 'printer' });
    expect(statSync(result.files[0]!.path).size).toBeLessThanOrEqual(statSync(small).size);
  });

  it('lossless stays with qpdf; a lossy one with a watermark and a password runs in order: draw, compress, protect', async () => {
    const dir = tempDir();
    const pdf = await scannedLikePdf();
    const lossless = await operate(pdf, join(dir, 'l'), { compress: 'lossless' });
    expect(lossless.plan.steps[0]!.engines[0]).toBe('qpdf');
    // Given encryption first: still done last, and the watermark before the compression.
    const events: RunEvent[] = [];
    const result = await operate(
      pdf,
      join(dir, 'p'),
      { user_password: 'x1', compress: 'screen', watermark: 'DRAFT' },
      (e) => events.push(e),
    );
    expect(result.plan.steps.map((s) => [s.engines[0], [...s.options].sort().join(',')])).toEqual([
      ['qpdf', 'watermark'],
      ['ghostscript', 'compress'],
      ['qpdf', 'user_password'],
    ]);
    const out = result.files[0]!.path;
    expect(spawnSync('qpdf', ['--requires-password', out]).status).toBe(0);
    expect(statSync(out).size).toBeLessThan(statSync(pdf).size / 2);
    const inside = execFileSync('pdftotext', ['-raw', '-upw', 'x1', out, '-'], { encoding: 'utf8' });
    expect(inside.replace(/\s+/g, '')).toContain('DRAFT');
    expect(inside.replace(/\s+/g, ' ')).toContain(WORDS);
    expect(spawnSync('qpdf', ['--password=x1', '--check', out]).status).toBe(0);
    expect(JSON.stringify(events)).not.toContain('x1"');
  });
});

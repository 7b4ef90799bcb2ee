import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/ghostscript.js';
import { FileconvError } from '../../src/errors/index.js';
import type { EngineProcessError } from '../../src/run/process.js';
import { expectCode, runStep, stepContext, tempDir } from '../helpers/step.js';
import { encryptedPdf, postscriptSamples, sizedPagesPdf, sniff, textPdf } from './_image-samples.js';

async function pdfText(pdf: string): Promise<string> {
  return (await execa('pdftotext', [pdf, '-'])).stdout;
}

describe('ghostscript converter', () => {
  it('probes gs', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('writes PDF/A-2b with an sRGB output intent', async () => {
    const pdf = await textPdf(tempDir(), ['Archive me']);
    const { files } = await runStep(converter, 'pdf', 'pdfa', pdf);
    expect(files[0]).toMatch(/\.pdf$/);
    expect(sniff(files[0]!)).toBe('pdf');
    const raw = readFileSync(files[0]!).toString('latin1');
    expect(raw).toMatch(/pdfaid:part='2'|<pdfaid:part>2</);
    expect(raw).toContain('/OutputIntents');
    expect(await pdfText(files[0]!)).toContain('Archive me');
  });

  it('turns PostScript and EPS into PDF, and PDF into PostScript', async () => {
    const { ps, eps } = postscriptSamples(tempDir());
    const fromPs = await runStep(converter, 'ps', 'pdf', ps);
    expect(sniff(fromPs.files[0]!)).toBe('pdf');
    expect(await pdfText(fromPs.files[0]!)).toMatch(/PostScript one[\s\S]*PostScript two/);
    const fromEps = await runStep(converter, 'eps', 'pdf', eps);
    // -dEPSCrop: the page is the bounding box.
    expect((await execa('pdfinfo', [fromEps.files[0]!])).stdout).toMatch(/Page size:\s+200 x 100 pts/);
    const back = await runStep(converter, 'pdf', 'ps', fromPs.files[0]!);
    expect(sniff(back.files[0]!)).toBe('ps');
  });

  it('renders EPS to PNG at its bounding box', async () => {
    const { eps } = postscriptSamples(tempDir());
    const { files } = await runStep(converter, 'eps', 'png', eps, { dpi: 144 });
    expect(sniff(files[0]!)).toBe('png');
    expect(await sharp(files[0]!).metadata()).toMatchObject({ width: 400, height: 200 });
  });

  it('renders PDF pages to PNG and JPEG in page order, honouring pages', async () => {
    const widths = Array.from({ length: 11 }, (_, i) => 72 + i * 36);
    const pdf = await sizedPagesPdf(tempDir(), widths);
    const png = await runStep(converter, 'pdf', 'png', pdf, { dpi: 72 });
    expect(png.files).toHaveLength(11);
    for (const [i, f] of png.files.entries()) expect((await sharp(f).metadata()).width).toBe(widths[i]);
    const jpg = await runStep(converter, 'pdf', 'jpg', pdf, { dpi: 72, pages: '2,10-11' });
    expect(jpg.files.map(sniff)).toEqual(['jpg', 'jpg', 'jpg']);
    const got = await Promise.all(jpg.files.map(async (f) => (await sharp(f).metadata()).width));
    expect(got).toEqual([widths[1], widths[9], widths[10]]);
  });

  it('refuses pages that would rasterise too large', async () => {
    const pdf = await sizedPagesPdf(tempDir(), [14_400]);
    const e = await expectCode(runStep(converter, 'pdf', 'png', pdf, { dpi: 600 }), 'OUTPUT_TOO_LARGE');
    expect(e.message).toMatch(/120000 x 834 pixels/);
  });

  it('classifies encrypted, damaged and mislabelled inputs', async () => {
    const dir = tempDir();
    const locked = await encryptedPdf(await textPdf(dir, ['Secret']), join(dir, 'locked.pdf'));
    await expectCode(runStep(converter, 'pdf', 'pdfa', locked), 'ENCRYPTED_DOCUMENT');
    await expectCode(runStep(converter, 'pdf', 'png', locked), 'ENCRYPTED_DOCUMENT');
    // PostScript pretending to be a PDF is never run as a program.
    const disguised = join(dir, 'disguised.pdf');
    writeFileSync(
      disguised,
      '%!PS\n/Helvetica findfont 20 scalefont setfont 72 700 moveto (run me) show showpage\n',
    );
    await expectCode(runStep(converter, 'pdf', 'ps', disguised), 'MALFORMED_DOCUMENT');
    const broken = join(dir, 'broken.pdf');
    writeFileSync(broken, '%PDF-1.4\n1 0 obj << /Type /Catalog >>\nnothing else here\n');
    await expectCode(runStep(converter, 'pdf', 'pdfa', broken), 'MALFORMED_DOCUMENT');
    const badPs = join(dir, 'bad.ps');
    writeFileSync(badPs, '%!PS\nthis is not valid postscript at all\n');
    await expectCode(runStep(converter, 'ps', 'pdf', badPs), 'MALFORMED_DOCUMENT');
    const notPs = join(dir, 'not.eps');
    writeFileSync(notPs, 'plain words');
    await expectCode(runStep(converter, 'eps', 'pdf', notPs), 'MALFORMED_DOCUMENT');
  });

  it('keeps -dSAFER: a PostScript program cannot read other files', async () => {
    const dir = tempDir();
    const ps = join(dir, 'snoop.ps');
    writeFileSync(
      ps,
      '%!PS\n/Helvetica findfont 12 scalefont setfont 72 700 moveto (/etc/hostname) (r) file 100 string readstring pop show showpage\n',
    );
    const e = await runStep(converter, 'ps', 'pdf', ps).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(FileconvError);
    expect(((e as FileconvError).cause as EngineProcessError).output).toMatch(/invalidfileaccess/);
  });

  it('stops a PostScript program that never ends, at the step time limit', async () => {
    const ps = join(tempDir(), 'forever.ps');
    writeFileSync(ps, '%!PS\n{ } loop\n');
    const edge = converter.edges.find((e) => e.from === 'ps' && e.to === 'pdf')!;
    const run = converter.run({ edge, input: ps, outDir: tempDir(), options: {} }, stepContext(2_000));
    const e = await expectCode(run, 'CONVERT_FAILED');
    expect(e.message).toMatch(/took longer than/);
  });
});

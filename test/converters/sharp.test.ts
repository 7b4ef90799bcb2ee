import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/sharp.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';
import { gradientPng, pixelFloodPng, sharpSample, sniff } from './_image-samples.js';

const RASTER = ['png', 'jpg', 'webp', 'avif', 'tiff', 'gif'];

describe('sharp converter', () => {
  it('probes the in-process library', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/sharp \d/);
  });

  it('declares no edge this libvips build cannot do', () => {
    for (const edge of converter.edges) {
      if (edge.from === 'svg' || edge.to === 'pdf') continue;
      expect(RASTER).toContain(edge.from);
      expect(RASTER).toContain(edge.to);
    }
    expect(converter.edges.some((e) => e.from === 'heic' || e.to === 'heic')).toBe(false);
  });

  it('converts every raster source to every raster target', async () => {
    const dir = tempDir();
    for (const from of RASTER) {
      const input = await sharpSample(dir, from);
      for (const to of RASTER) {
        if (to === from) continue;
        const { files } = await runStep(converter, from, to, input);
        expect(files).toHaveLength(1);
        expect(sniff(files[0]!), `${from} -> ${to}`).toBe(to);
        const meta = await sharp(files[0]!).metadata();
        expect([meta.width, meta.height]).toEqual([64, 48]);
      }
    }
  });

  it('resizes, fits and applies quality', async () => {
    const input = await gradientPng(join(tempDir(), 'in.png'), 400, 200);
    const inside = await runStep(converter, 'png', 'webp', input, { width: 100, height: 100 });
    expect(await sharp(inside.files[0]!).metadata()).toMatchObject({ width: 100, height: 50 });
    const cover = await runStep(converter, 'png', 'jpg', input, { width: 100, height: 100, fit: 'cover' });
    expect(await sharp(cover.files[0]!).metadata()).toMatchObject({ width: 100, height: 100 });
    const low = await runStep(converter, 'png', 'jpg', input, { quality: 5 });
    const high = await runStep(converter, 'png', 'jpg', input, { quality: 95 });
    expect(readFileSync(low.files[0]!).length).toBeLessThan(readFileSync(high.files[0]!).length);
  });

  it('puts transparent areas on white in JPEG output', async () => {
    const input = await gradientPng(join(tempDir(), 'alpha.png'), 64, 48, true);
    const { files } = await runStep(converter, 'png', 'jpg', input);
    const { data } = await sharp(files[0]!).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => data[(y * 64 + x) * 3 + 2]!; // blue channel
    // Opaque half keeps blue 128; the see-through half is blended toward white.
    expect(pixel(5, 5)).toBeLessThan(140);
    expect(pixel(60, 5)).toBeGreaterThan(180);
  });

  it('writes images as PDF pages that poppler renders back', async () => {
    const dir = tempDir();
    for (const from of RASTER) {
      const input =
        from === 'png' ? await gradientPng(join(dir, 'a.png'), 64, 48, true) : await sharpSample(dir, from);
      const { files } = await runStep(converter, from, 'pdf', input);
      expect(sniff(files[0]!), from).toBe('pdf');
      const info = await execa('pdfinfo', [files[0]!]);
      expect(info.stdout).toMatch(/Pages:\s+1/);
      // 64 x 48 pixels at 96 dpi: these pictures state no resolution (or libvips' 25.4 dpi placeholder)
      expect(info.stdout, from).toMatch(/Page size:\s+48 x 36 pts/);
    }
  });

  it('makes one PDF page per TIFF page', async () => {
    const dir = tempDir();
    const a = await gradientPng(join(dir, 'a.png'), 40, 30);
    const b = await gradientPng(join(dir, 'b.png'), 80, 20);
    const tiff = join(dir, 'multi.tiff');
    await execa('convert-im6.q16', [`png:${a}`, `png:${b}`, `tiff:${tiff}`]);
    const { files } = await runStep(converter, 'tiff', 'pdf', tiff);
    const info = await execa('pdfinfo', ['-f', '1', '-l', '2', files[0]!]);
    expect(info.stdout).toMatch(/Pages:\s+2/);
  });

  it('renders SVG as a fallback engine, honouring dpi, without reading files beside it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secret.png'), readFileSync(await gradientPng(join(dir, 'g.png'), 10, 10)));
    const svg = join(dir, 'in.svg');
    writeFileSync(
      svg,
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="red"/><image href="secret.png" width="100" height="50"/></svg>',
    );
    const { files } = await runStep(converter, 'svg', 'png', svg);
    expect(await sharp(files[0]!).metadata()).toMatchObject({ width: 100, height: 50 });
    const { data } = await sharp(files[0]!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]); // the red rect, not the neighbouring file
    for (const to of RASTER.filter((f) => f !== 'png')) {
      const out = await runStep(converter, 'svg', to, svg);
      expect(sniff(out.files[0]!), `svg -> ${to}`).toBe(to);
    }
    const hi = await runStep(converter, 'svg', 'webp', svg, { dpi: 192 });
    expect(await sharp(hi.files[0]!).metadata()).toMatchObject({ width: 200, height: 100 });
  });

  it('refuses a pixel flood before decoding it', async () => {
    const flood = pixelFloodPng(join(tempDir(), 'flood.png'));
    const e = await expectCode(runStep(converter, 'png', 'jpg', flood), 'INPUT_TOO_LARGE');
    expect(e.message).toMatch(/100000 x 100000 pixels.*over the limit of 50 megapixels/);
    await expectCode(runStep(converter, 'png', 'pdf', flood), 'INPUT_TOO_LARGE');
  });

  it('reports a file that is not an image as malformed', async () => {
    const dir = tempDir();
    const fake = join(dir, 'fake.png');
    writeFileSync(fake, 'this is not a png');
    await expectCode(runStep(converter, 'png', 'webp', fake), 'MALFORMED_DOCUMENT');
    const jpg = await sharpSample(dir, 'jpg', 200, 200);
    const truncated = join(dir, 'truncated.jpg');
    writeFileSync(truncated, readFileSync(jpg).subarray(0, 300));
    await expectCode(runStep(converter, 'jpg', 'png', truncated), 'MALFORMED_DOCUMENT');
  });

  it('decodes only the declared format: an SVG or a JPEG given as PNG is refused', async () => {
    const dir = tempDir();
    const svg = join(dir, 'disguised.png');
    writeFileSync(
      svg,
      '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20"/></svg>',
    );
    const e = await expectCode(runStep(converter, 'png', 'jpg', svg), 'FORMAT_MISMATCH');
    expect(e.message).toMatch(/declared as png decodes as svg/);
    const jpg = await sharpSample(dir, 'jpg', 20, 20);
    await expectCode(runStep(converter, 'png', 'webp', jpg), 'FORMAT_MISMATCH');
    // The same JPEG declared as what it is converts.
    const ok = await runStep(converter, 'jpg', 'webp', jpg);
    expect(sniff(ok.files[0]!)).toBe('webp');
  });
});

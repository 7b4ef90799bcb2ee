import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/libheif.js';
import { loadConverters } from '../../src/engine/registry.js';
import { planConversion } from '../../src/plan/graph.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';
import { gradientPng } from './_image-samples.js';

/** A HEIC written by libheif's own encoder (heif-enc, same Debian package) from a gradient. */
async function heic(alpha: boolean): Promise<string> {
  const dir = tempDir();
  const png = await gradientPng(join(dir, 'src.png'), 96, 64, alpha);
  const out = join(dir, 'in.heic');
  execFileSync('heif-enc', ['-q', '80', png, '-o', out], { stdio: 'ignore' });
  return out;
}

describe('libheif converter', () => {
  it('probes heif-convert with its libheif version', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('is the fallback behind ImageMagick for HEIC', async () => {
    const plan = planConversion('heic', 'png', await loadConverters())!;
    expect(plan.steps).toHaveLength(1);
    expect(plan.steps[0]!.engines).toEqual(['imagemagick', 'libheif']);
  });

  it('decodes HEIC to PNG, keeping size and alpha', async () => {
    const { files } = await runStep(converter, 'heic', 'png', await heic(true));
    const meta = await sharp(readFileSync(files[0]!)).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 96, 64, true]);
    // the left half is opaque, the right half see-through, as in the source
    const { data } = await sharp(files[0]!).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
    expect(data[10]).toBeGreaterThan(240);
    expect(data[90]).toBeLessThan(130);
  });

  it('decodes HEIC to JPEG at the asked quality', async () => {
    const input = await heic(false);
    const small = await runStep(converter, 'heic', 'jpg', input, { quality: 20 });
    const large = await runStep(converter, 'heic', 'jpg', input, { quality: 95 });
    const meta = await sharp(small.files[0]!).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 96, 64]);
    expect(readFileSync(small.files[0]!).length).toBeLessThan(readFileSync(large.files[0]!).length);
  });

  it.each([
    ['webp', 'webp'],
    ['tiff', 'tiff'],
    ['gif', 'gif'],
  ])('is the fallback for HEIC to %s too, encoding its PNG with sharp', async (to, format) => {
    const plan = planConversion('heic', to, await loadConverters())!;
    expect(plan.steps).toHaveLength(1);
    expect(plan.steps[0]!.engines).toEqual(['imagemagick', 'libheif']);
    const { files } = await runStep(converter, 'heic', to, await heic(true));
    const meta = await sharp(readFileSync(files[0]!)).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual([format, 96, 64, true]);
  });

  it('reports bytes that are not HEIF as MALFORMED_DOCUMENT', async () => {
    const garbage = join(tempDir(), 'garbage.heic');
    writeFileSync(garbage, randomBytes(2048));
    await expectCode(runStep(converter, 'heic', 'png', garbage), 'MALFORMED_DOCUMENT');
  });
});

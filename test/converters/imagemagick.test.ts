import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import converter, { findImageMagick, imagemagickEnv } from '../../converters/imagemagick.js';
import { loadConverters } from '../../src/engine/registry.js';
import { planConversion } from '../../src/plan/graph.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';
import { gradientPng, sniff } from './_image-samples.js';

const CODER: Record<string, string> = {
  png: 'png',
  jpg: 'jpeg',
  gif: 'gif',
  tiff: 'tiff',
  webp: 'webp',
  bmp: 'bmp',
  ico: 'ico',
  heic: 'heic',
  psd: 'psd',
};
const SOURCES = Object.keys(CODER);
const TARGETS = SOURCES.filter((f) => f !== 'psd');
const SHARP_READS = ['png', 'jpg', 'gif', 'tiff', 'webp'];

let magick: string;
let samples: Record<string, string>;
let dir: string;
// A loopback server that records any request: ImageMagick must never fetch anything.
const hits: string[] = [];
const canary = createServer((req, res) => {
  hits.push(req.url ?? '');
  res.end('x');
});

async function im(args: string[]) {
  return execa(magick, args, { env: imagemagickEnv(), reject: false, all: true, cwd: dir });
}

beforeAll(async () => {
  const probe = await findImageMagick();
  magick = probe.path!;
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  // Samples of every source format, made from one gradient with ImageMagick under the policy.
  // Not tempDir(): that one goes after each test, and the samples serve them all.
  dir = mkdtempSync(join(tmpdir(), 'fileconv-im-samples-'));
  const png = await gradientPng(join(dir, 'sample.png'), 40, 30);
  samples = { png };
  for (const f of SOURCES.filter((s) => s !== 'png')) {
    const out = join(dir, `sample.${f}`);
    const r = await im([`png:${png}`, `${CODER[f]}:${out}`]);
    if (r.exitCode !== 0) throw new Error(r.all);
    samples[f] = out;
  }
});

afterAll(() => {
  canary.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('imagemagick converter', () => {
  it('finds a real ImageMagick, not whatever convert comes first on PATH', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
    const version = await execa(probe.path!, ['-version']);
    expect(version.stdout).toContain('ImageMagick');
  });

  it('runs with the project policy loaded', async () => {
    const r = await im(['-list', 'policy']);
    expect(r.all).toContain(join('converters', 'imagemagick', 'policy.xml'));
    const limits = await im(['-list', 'resource']);
    expect(limits.all).toMatch(/Thread:\s+1/);
    expect(limits.all).toMatch(/Area:\s+128MP/);
  });

  it('converts every source format to every target format', async () => {
    for (const from of SOURCES) {
      for (const to of TARGETS) {
        if (from === to) continue;
        const { files } = await runStep(converter, from, to, samples[from]!);
        expect(sniff(files[0]!), `${from} -> ${to}`).toBe(to);
        if (SHARP_READS.includes(to)) {
          expect(await sharp(files[0]!).metadata(), `${from} -> ${to}`).toMatchObject({
            width: 40,
            height: 30,
          });
        }
      }
    }
  });

  it('reads an AVIF image sequence that sharp cannot open (its first frame)', async () => {
    // a real AVIF sequence with an alpha track, from mimetype's test data (test/fixtures/convert/README.md)
    const sequence = join(process.cwd(), 'test', 'fixtures', 'convert', 'avifsequence.avif');
    await expect(sharp(sequence).metadata()).rejects.toThrow(/unsupported image format/);
    for (const to of ['png', 'jpg', 'webp']) {
      const { files } = await runStep(converter, 'avif', to, sequence);
      expect(sniff(files[0]!), to).toBe(to);
      expect(await sharp(files[0]!).metadata(), to).toMatchObject({ width: 499, height: 479 });
    }
  });

  it('puts the first frame of an AVIF sequence on a PDF page, as the fallback behind sharp', async () => {
    const sequence = join(process.cwd(), 'test', 'fixtures', 'convert', 'avifsequence.avif');
    const plan = planConversion('avif', 'pdf', await loadConverters())!;
    expect(plan.steps.map((s) => s.engines)).toEqual([['sharp', 'imagemagick']]);
    const { files } = await runStep(converter, 'avif', 'pdf', sequence);
    const info = (await execa('pdfinfo', [files[0]!])).stdout;
    expect(info).toMatch(/^Pages:\s+1$/m);
    // 499 x 479 pixels at 96 dpi: the PNG ImageMagick hands over states no resolution of the AVIF's.
    expect(info).toMatch(/^Page size:\s+374\.25 x 359\.25 pts/m);
    const images = (await execa('pdfimages', ['-list', files[0]!])).stdout.split('\n').slice(2);
    expect(images[0]).toMatch(/^\s+1\s+0\s+image\s+499\s+479\s/);
  });

  it('keeps icons within 256 pixels and honours resize options', async () => {
    const big = await gradientPng(join(tempDir(), 'big.png'), 600, 300);
    const ico = await runStep(converter, 'png', 'ico', big);
    expect(sniff(ico.files[0]!)).toBe('ico');
    const back = await runStep(converter, 'ico', 'png', ico.files[0]!);
    expect(await sharp(back.files[0]!).metadata()).toMatchObject({ width: 256, height: 128 });
    const cover = await runStep(converter, 'bmp', 'png', samples.bmp!, {
      width: 20,
      height: 20,
      fit: 'cover',
    });
    expect(await sharp(cover.files[0]!).metadata()).toMatchObject({ width: 20, height: 20 });
    const inside = await runStep(converter, 'heic', 'png', samples.heic!, { width: 20 });
    expect(await sharp(inside.files[0]!).metadata()).toMatchObject({ width: 20, height: 15 });
  });

  it('refuses script, indirection and network coders through its policy', async () => {
    const work = tempDir();
    const mvg = join(work, 'evil.mvg');
    writeFileSync(
      mvg,
      `push graphic-context\nviewbox 0 0 10 10\nimage over 0,0 0,0 'text:/etc/passwd'\npop graphic-context\n`,
    );
    const url = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/x.png`;
    for (const source of [
      `mvg:${mvg}`,
      `msl:${mvg}`,
      'text:@/etc/passwd',
      'label:@/etc/passwd',
      `png:@${samples.png}`,
      'ephemeral:/etc/passwd',
      `url:${url}`,
      url,
      'xc:red',
      'ps:/dev/null',
    ]) {
      const out = join(work, 'out.png');
      const r = await im([source, `png:${out}`]);
      expect(r.exitCode, source).not.toBe(0);
      expect(existsSync(out), source).toBe(false);
    }
    const mvgRun = await im([`mvg:${mvg}`, `png:${join(work, 'o.png')}`]);
    expect(mvgRun.all).toMatch(/not allowed by the security policy `MVG'/);
    expect(hits).toEqual([]);
  });

  it('reads a hostile MVG upload with the coder of its claimed type, and fails it as malformed', async () => {
    const evil = join(tempDir(), 'evil.bmp');
    writeFileSync(
      evil,
      `push graphic-context\nviewbox 0 0 640 480\nimage over 0,0 0,0 'https://127.0.0.1/x.png'\npop graphic-context\n`,
    );
    await expectCode(runStep(converter, 'bmp', 'png', evil), 'MALFORMED_DOCUMENT');
    const garbage = join(tempDir(), 'garbage.psd');
    writeFileSync(garbage, 'not a photoshop file at all');
    await expectCode(runStep(converter, 'psd', 'png', garbage), 'MALFORMED_DOCUMENT');
  });

  it('refuses an image header over the size limits', async () => {
    // A 54-byte BMP header claiming 100000 x 100000 pixels and no pixel data.
    const bmp = Buffer.alloc(54);
    bmp.write('BM', 0, 'latin1');
    bmp.writeUInt32LE(54, 2);
    bmp.writeUInt32LE(54, 10);
    bmp.writeUInt32LE(40, 14);
    bmp.writeInt32LE(100_000, 18);
    bmp.writeInt32LE(100_000, 22);
    bmp.writeUInt16LE(1, 26);
    bmp.writeUInt16LE(24, 28);
    const path = join(tempDir(), 'flood.bmp');
    writeFileSync(path, bmp);
    const e = await expectCode(runStep(converter, 'bmp', 'png', path), 'INPUT_TOO_LARGE');
    expect(e.message).toMatch(/size limits/);
  });
});

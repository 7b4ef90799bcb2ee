import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { cgbiToPng, isCgbiPng } from '../../converters/_cgbi.js';
import sharpConverter from '../../converters/sharp.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** RGBA pixels of the test image: 4 x 3, opaque, half and fully transparent. */
const W = 4;
const H = 3;
const pixel = (x: number, y: number) => [
  40 + x * 50,
  30 + y * 90,
  200 - x * 40,
  y === 0 ? 255 : y === 1 ? 128 : x === 0 ? 0 : 64,
];

/**
 * A CgBI PNG as Xcode writes it: CgBI chunk first, BGRA premultiplied, raw deflate. Lines use the
 * Sub, Up and Paeth filters so that each is undone.
 */
function cgbiPng(): Buffer {
  const filters = [1, 2, 4];
  const raw: number[] = [];
  const lines: number[][] = [];
  for (let y = 0; y < H; y++) {
    const line: number[] = [];
    for (let x = 0; x < W; x++) {
      const [r, g, b, a] = pixel(x, y) as [number, number, number, number];
      const pre = (v: number) => Math.round((v * a) / 255);
      line.push(pre(b), pre(g), pre(r), a);
    }
    lines.push(line);
  }
  lines.forEach((line, y) => {
    const f = filters[y]!;
    raw.push(f);
    line.forEach((v, x) => {
      const a = x >= 4 ? line[x - 4]! : 0;
      const b = y > 0 ? lines[y - 1]![x]! : 0;
      const c = x >= 4 && y > 0 ? lines[y - 1]![x - 4]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      raw.push((v - (f === 1 ? a : f === 2 ? b : paeth) + 256) & 0xff);
    });
  });
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(W, 0);
  ihdr.writeUInt32BE(H, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('CgBI', Buffer.from([0x50, 0x00, 0x20, 0x06])),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateRawSync(Buffer.from(raw))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('Apple CgBI PNG', () => {
  it('is recognised by its first chunk', () => {
    expect(isCgbiPng(cgbiPng())).toBe(true);
    expect(
      isCgbiPng(readFileSync(join(process.cwd(), 'test', 'fixtures', 'convert', 'packagekit-dbus.xml'))),
    ).toBe(false);
  });

  it('reads into an ordinary PNG: RGBA order, alpha no longer premultiplied, as ImageMagick reads it', async () => {
    const png = join(tempDir(), 'normal.png');
    writeFileSync(png, await cgbiToPng(cgbiPng()));
    const rgba = execFileSync('convert', [png, '-depth', '8', 'rgba:-']);
    expect(rgba.length).toBe(W * H * 4);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const want = pixel(x, y);
        const got = [...rgba.subarray((y * W + x) * 4, (y * W + x) * 4 + 4)];
        expect(got[3]).toBe(want[3]);
        // A fully transparent pixel keeps no colour; the others come back within premultiplying's rounding.
        if (want[3]! > 0)
          for (let k = 0; k < 3; k++) expect(Math.abs(got[k]! - want[k]!)).toBeLessThanOrEqual(2);
      }
  });

  it('converts to JPEG and WebP through sharp at its size', async () => {
    const input = join(tempDir(), 'icon.png');
    writeFileSync(input, cgbiPng());
    for (const to of ['jpg', 'webp']) {
      const { files } = await runStep(sharpConverter, 'png', to, input);
      expect(execFileSync('identify', ['-format', '%m %w %h', files[0]!]).toString()).toBe(
        `${to === 'jpg' ? 'JPEG' : 'WEBP'} ${W} ${H}`,
      );
    }
  });

  it('refuses a CgBI PNG whose image data does not inflate as MALFORMED_DOCUMENT', async () => {
    const bytes = cgbiPng();
    const idat = bytes.indexOf('IDAT');
    bytes.fill(0xff, idat + 4, idat + 12);
    const input = join(tempDir(), 'bad.png');
    writeFileSync(input, bytes);
    await expectCode(runStep(sharpConverter, 'png', 'jpg', input), 'MALFORMED_DOCUMENT');
  });
});

/**
 * Apple's CgBI PNG, as iOS app bundles store images after Xcode's "pngcrush -iphone": a `CgBI`
 * chunk before IHDR, image data deflated without the zlib header and checksum, pixels in BGR(A)
 * order with colour premultiplied by alpha. No decoder here reads it (libvips and ImageMagick stop
 * at the unknown critical chunk), so it is turned into an ordinary PNG first.
 */
import { inflateRawSync } from 'node:zlib';
import sharp from 'sharp';
import { FileconvError } from '../src/errors/index.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Decoded pixels at most, checked from IHDR before inflating (as sharp's own input limit). */
const MAX_PIXELS = 50_000_000;

/** Whether the bytes are a PNG whose first chunk is CgBI (16 bytes are enough). */
export function isCgbiPng(head: Buffer): boolean {
  return (
    head.length >= 16 && head.subarray(0, 8).equals(SIGNATURE) && head.toString('latin1', 12, 16) === 'CgBI'
  );
}

const malformed = (why: string) =>
  new FileconvError('MALFORMED_DOCUMENT', `The CgBI PNG cannot be read: ${why}.`);

/** The chunks of a PNG, type and data; stops at IEND. */
function chunks(png: Buffer): { type: string; data: Buffer }[] {
  const out: { type: string; data: Buffer }[] = [];
  let at = 8;
  while (at + 8 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (at + 12 + length > png.length) throw malformed(`the ${type} chunk is cut short`);
    out.push({ type, data: png.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
    if (type === 'IEND') break;
  }
  return out;
}

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** Undoes PNG's per-line filters (the standard five) into packed pixels. */
function unfilter(data: Buffer, width: number, height: number, channels: number): Buffer {
  const stride = width * channels;
  if (data.length < (stride + 1) * height) throw malformed('the image data is shorter than its size says');
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (stride + 1)]!;
    const line = data.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[row + x - channels]! : 0;
      const b = y > 0 ? out[row - stride + x]! : 0;
      const c = x >= channels && y > 0 ? out[row - stride + x - channels]! : 0;
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predictor === undefined) throw malformed(`unknown line filter ${filter}`);
      out[row + x] = (line[x]! + predictor) & 0xff;
    }
  }
  return out;
}

/** An ordinary PNG of a CgBI PNG's pixels: RGB(A), alpha no longer premultiplied. */
export async function cgbiToPng(png: Buffer): Promise<Buffer> {
  const list = chunks(png);
  const header = list.find((c) => c.type === 'IHDR')?.data;
  if (!header || header.length < 13) throw malformed('it has no IHDR chunk');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [depth, colour, , , interlace] = header.subarray(8, 13);
  const channels = colour === 6 ? 4 : colour === 2 ? 3 : 0;
  if (depth !== 8 || channels === 0 || interlace !== 0)
    throw malformed(
      `only 8-bit, non-interlaced RGB and RGBA are written as CgBI (depth ${depth}, colour type ${colour})`,
    );
  if (width === 0 || height === 0 || width * height > MAX_PIXELS)
    throw malformed(`its size ${width} x ${height} is out of range`);
  const deflated = Buffer.concat(list.filter((c) => c.type === 'IDAT').map((c) => c.data));
  let data: Buffer;
  try {
    data = inflateRawSync(deflated, { maxOutputLength: (width * channels + 1) * height });
  } catch (e) {
    throw malformed(`its image data does not inflate (${(e as Error).message})`);
  }
  const pixels = unfilter(data, width, height, channels);
  for (let i = 0; i < pixels.length; i += channels) {
    const blue = pixels[i]!;
    pixels[i] = pixels[i + 2]!;
    pixels[i + 2] = blue;
    if (channels === 4) {
      const alpha = pixels[i + 3]!;
      for (let k = 0; k < 3; k++)
        pixels[i + k] = alpha === 0 ? 0 : Math.min(255, Math.round((pixels[i + k]! * 255) / alpha));
    }
  }
  return sharp(pixels, { raw: { width, height, channels: channels as 3 | 4 } })
    .png()
    .toBuffer();
}

/**
 * A PNG's compressed pixels as a PDF image, without decoding them: a PNG's IDAT data is a zlib
 * stream of rows, each prefixed by its filter byte, which is exactly what PDF's FlateDecode with
 * PNG predictors (`/Predictor 15`) reads. So the picture is stored at the PNG's own size, as
 * img2pdf stores it. PDF has no alpha channel in an image's samples, and no interlacing: such
 * PNGs are not taken here (the caller re-encodes them).
 */

/** A PNG's samples as PDF can hold them. */
export interface PngSamples {
  width: number;
  height: number;
  bitDepth: number;
  /** Samples per pixel: 1 (gray or palette index) or 3 (RGB). */
  colors: 1 | 3;
  /** RGB triplets of a palette image. */
  palette?: Buffer;
  /** The embedded ICC profile, still zlib-compressed as the iCCP chunk holds it. */
  icc?: Buffer;
  /** The concatenated IDAT chunks: a zlib stream of filtered rows. */
  data: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Chunk {
  type: string;
  data: Buffer;
}

function* chunks(png: Buffer): Generator<Chunk> {
  let at = SIGNATURE.length;
  while (at + 8 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const end = at + 8 + length;
    if (end + 4 > png.length) return;
    yield { type, data: png.subarray(at + 8, end) };
    if (type === 'IEND') return;
    at = end + 4;
  }
}

/** pHYs: pixels per metre across and down, in inches; undefined when it gives only an aspect ratio. */
export function pngResolution(png: Buffer): [number, number] | undefined {
  if (!png.subarray(0, 8).equals(SIGNATURE)) return undefined;
  for (const { type, data } of chunks(png)) {
    if (type === 'IDAT') return undefined;
    if (type === 'pHYs' && data.length >= 9 && data[8] === 1)
      return [data.readUInt32BE(0) * 0.0254, data.readUInt32BE(4) * 0.0254];
  }
  return undefined;
}

/** PNG colour types PDF can take as they are: gray (0), RGB (2), palette (3). */
const COLORS: Record<number, 1 | 3> = { 0: 1, 2: 3, 3: 1 };

/**
 * The PNG's samples ready for a PDF image, or undefined when PDF cannot hold them as they are:
 * an alpha channel (colour types 4 and 6), transparency (tRNS), interlacing, or a damaged file.
 */
export function pngSamples(png: Buffer): PngSamples | undefined {
  if (!png.subarray(0, 8).equals(SIGNATURE)) return undefined;
  let header: PngSamples | undefined;
  let ended = false;
  const idat: Buffer[] = [];
  for (const { type, data } of chunks(png)) {
    if (type === 'IEND') ended = true;
    else if (type === 'IHDR') {
      if (data.length < 13) return undefined;
      const colors = COLORS[data[9]!];
      // Compression and filter methods other than 0 do not exist; interlacing PDF cannot read.
      if (!colors || data[10] !== 0 || data[11] !== 0 || data[12] !== 0) return undefined;
      header = {
        width: data.readUInt32BE(0),
        height: data.readUInt32BE(4),
        bitDepth: data[8]!,
        colors,
        data: Buffer.alloc(0),
      };
      if (data[9] === 3) header.palette = Buffer.alloc(0);
    } else if (!header) {
      return undefined;
    } else if (type === 'PLTE') {
      header.palette = data;
    } else if (type === 'tRNS') {
      return undefined;
    } else if (type === 'iCCP') {
      // A Latin-1 name of 1 to 79 bytes, a NUL, the compression method (0), then the profile.
      const nul = data.indexOf(0);
      if (nul > 0 && data[nul + 1] === 0) header.icc = data.subarray(nul + 2);
    } else if (type === 'IDAT') {
      idat.push(data);
    }
  }
  // A file cut short (no IEND) is decoded by the caller instead, which refuses it, rather than
  // stored with rows missing.
  if (!ended || !header || idat.length === 0 || header.width === 0 || header.height === 0) return undefined;
  if (header.palette !== undefined && header.palette.length < 3) return undefined;
  return { ...header, data: Buffer.concat(idat) };
}

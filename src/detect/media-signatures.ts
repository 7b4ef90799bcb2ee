import { CONFIDENCE, type Finding } from './types.js';

/**
 * Signatures of image, audio and video formats that file-type does not know, or that open with
 * text (Netpbm, XPM, XBM, FITS, Radiance, YUV4MPEG2) and would otherwise reach the text sniffers.
 * Offsets and values follow each format's specification; where a format has no magic number
 * (TGA, PCX, DV) its header fields must all hold values the specification allows.
 */
type Check = (h: Buffer) => string | undefined;

const at = (h: Buffer, offset: number, ascii: string) =>
  h.length >= offset + ascii.length && h.toString('latin1', offset, offset + ascii.length) === ascii;
const bytes = (h: Buffer, offset: number, ...values: number[]) =>
  h.length >= offset + values.length && values.every((v, i) => h[offset + i] === v);

/** Sony Wave64's RIFF GUID (`riff` then 2E91CF11-A5D6-28DB-04C1-00000000). */
const W64_RIFF = [0x72, 0x69, 0x66, 0x66, 0x2e, 0x91, 0xcf, 0x11, 0xa5, 0xd6, 0x28, 0xdb, 0x04, 0xc1];

const CHECKS: Check[] = [
  // Images
  (h) => (at(h, 0, '/* XPM */') ? 'xpm' : undefined),
  (h) => (at(h, 0, 'qoif') && h.length >= 14 ? 'qoi' : undefined),
  (h) => (at(h, 0, 'DDS ') && h.length >= 128 && h.readUInt32LE(4) === 124 ? 'dds' : undefined),
  (h) => (bytes(h, 0, 0x76, 0x2f, 0x31, 0x01) ? 'exr' : undefined),
  (h) => (at(h, 0, '#?RADIANCE\n') || at(h, 0, '#?RGBE\n') ? 'hdr' : undefined),
  (h) =>
    at(h, 0, 'SIMPLE  =') && /^SIMPLE {2}= {20}T/.test(h.toString('latin1', 0, 30)) ? 'fits' : undefined,
  // KTX 1 and KTX 2 share their identifier but for the version digits.
  (h) =>
    bytes(h, 0, 0xab, 0x4b, 0x54, 0x58, 0x20) && /^(11|20)\xbb\r\n\x1a\n/.test(h.toString('latin1', 5, 12))
      ? 'ktx'
      : undefined,
  (h) => (bytes(h, 0, 0x01, 0xda) && h[2]! <= 1 && (h[3] === 1 || h[3] === 2) ? 'sgi' : undefined),
  // Enhanced metafile: an EMR_HEADER record whose signature is " EMF".
  (h) => (bytes(h, 0, 1, 0, 0, 0) && at(h, 40, ' EMF') ? 'emf' : undefined),
  // Windows metafile: the Aldus placeable header, or a bare METAHEADER (memory or disk, 9 words).
  (h) =>
    bytes(h, 0, 0xd7, 0xcd, 0xc6, 0x9a) ||
    /^[\x01\x02]\x00\x09\x00\x00[\x01\x03]/.test(h.toString('latin1', 0, 6))
      ? 'wmf'
      : undefined,
  netpbm,
  xbm,
  pcx,
  tga,
  // Audio
  (h) => (at(h, 0, 'caff') && bytes(h, 4, 0, 1) ? 'caf' : undefined),
  (h) => (bytes(h, 0, ...W64_RIFF) ? 'w64' : undefined),
  (h) => (at(h, 0, '.snd') && h.length >= 24 && h.readUInt32BE(4) >= 24 ? 'au' : undefined),
  (h) => (at(h, 0, 'FRM8') && at(h, 12, 'DSD ') ? 'dsf' : undefined),
  dts,
  (h) => (at(h, 0, 'ADIF') ? 'aac' : undefined),
  (h) =>
    at(h, 1080, 'M.K.') ||
    at(h, 1080, 'M!K!') ||
    at(h, 1080, 'FLT4') ||
    /^[2-9]CHN|^1\dCH|^\dCHN/.test(h.toString('latin1', 1080, 1084))
      ? 'mod'
      : undefined,
  // Video
  (h) => (at(h, 0, 'YUV4MPEG2 ') ? 'y4m' : undefined),
  dv,
];

export function matchMediaSignature(head: Buffer): Finding | undefined {
  for (const check of CHECKS) {
    const id = check(head);
    if (id)
      return { id, confidence: id === 'tga' || id === 'pcx' ? CONFIDENCE.HEURISTIC : CONFIDENCE.SIGNATURE };
  }
  return undefined;
}

/** P1-P7, then whitespace and a width (P7, PAM, has a WIDTH line instead). */
function netpbm(h: Buffer): string | undefined {
  const s = h.toString('latin1', 0, 32);
  if (
    /^P[1-6]\s+(#[^\n]*\n\s*)*\d+\s+\d+\s/.test(s) ||
    /^P7\s*\n(#[^\n]*\n)*(WIDTH|HEIGHT|DEPTH|MAXVAL|TUPLTYPE)\s/.test(s)
  )
    return 'pnm';
  return undefined;
}

/** An X bitmap is C source: width and height defines, then the `_bits[]` array. */
function xbm(h: Buffer): string | undefined {
  const s = h.toString('latin1', 0, 512);
  return /^#define\s+\w*width\s+\d+\s*\n#define\s+\w*height\s+\d+/.test(s) &&
    /static\s+(unsigned\s+)?char\s+\w*bits\s*\[\]/.test(s)
    ? 'xbm'
    : undefined;
}

/** ZSoft PCX: manufacturer 10, a known version, RLE or none, a plane bit depth, the reserved byte 0. */
function pcx(h: Buffer): string | undefined {
  if (h.length < 128 || h[0] !== 0x0a || ![0, 2, 3, 4, 5].includes(h[1]!) || h[2]! > 1) return undefined;
  if (![1, 2, 4, 8].includes(h[3]!) || h[64] !== 0 || ![1, 3, 4].includes(h[65]!)) return undefined;
  const [xMin, yMin, xMax, yMax] = [4, 6, 8, 10].map((o) => h.readUInt16LE(o));
  return xMax! >= xMin! && yMax! >= yMin! ? 'pcx' : undefined;
}

/**
 * Truevision TGA has no magic number at its start (version 2 ends with `TRUEVISION-XFILE.`, out
 * of a head's reach): every field of its 18-byte header must hold an allowed value.
 */
function tga(h: Buffer): string | undefined {
  if (h.length < 18) return undefined;
  const [cmapType, type, cmapDepth, depth, descriptor] = [h[1]!, h[2]!, h[7]!, h[16]!, h[17]!];
  if (cmapType > 1 || ![1, 2, 3, 9, 10, 11].includes(type) || ![8, 15, 16, 24, 32].includes(depth))
    return undefined;
  const mapped = type === 1 || type === 9;
  if (mapped !== (cmapType === 1)) return undefined;
  if (mapped ? ![15, 16, 24, 32].includes(cmapDepth) : h.readUInt16LE(5) !== 0 || cmapDepth !== 0)
    return undefined;
  // Bits 6-7 of the descriptor are reserved (interleaving, never written today).
  if (descriptor & 0xc0 || h.readUInt16LE(12) === 0 || h.readUInt16LE(14) === 0) return undefined;
  return 'tga';
}

/** DTS core sync words: 16-bit big- and little-endian, and the 14-bit packings of both. */
function dts(h: Buffer): string | undefined {
  const sync = h.subarray(0, 4).toString('hex');
  return ['7ffe8001', 'fe7f0180', '1fffe800', 'ff1f00e8'].includes(sync) ? 'dts' : undefined;
}

/**
 * A DV DIF sequence opens with its header block: section type 0 (`0x1F`), then DIF sequence 0,
 * channel 0, block 0, and the DSF bit (525/60 or 625/50) with the reserved bits set.
 */
function dv(h: Buffer): string | undefined {
  if (h.length < 80 * 6 || !bytes(h, 0, 0x1f, 0x07, 0x00) || (h[3]! & 0x7f) !== 0x3f) return undefined;
  // The next blocks are the two subcode blocks (section type 1, `0x3F`).
  return (h[80]! & 0xe0) === 0x20 && (h[160]! & 0xe0) === 0x20 ? 'dv' : undefined;
}

import { constants, inflateRawSync } from 'node:zlib';
import type { ByteSource } from '../source.js';
import { CONFIDENCE, type Finding } from '../types.js';
import { matchModel } from './models.js';
import { isUdifTrailer, matchBinarySignature, UDIF_TRAILER } from './signatures.js';

/**
 * Compressed files, archives, packages, disk images, executables, fonts and 3D models (the
 * binary rows of the registry). `looksLikeText`: the head has no control bytes, so the disk image
 * trailer is not read (archives of text files, such as ASCII cpio and ar, still are all text).
 */
export async function detectBinaryFormat(
  src: ByteSource,
  looksLikeText: boolean,
): Promise<Finding | undefined> {
  if (!looksLikeText && src.size >= UDIF_TRAILER * 2 && mayOpenDiskImage(src.head)) {
    const tail = await src.read(src.size - UDIF_TRAILER, UDIF_TRAILER);
    // An Apple disk image: known bytes, but not in the registry while no fixture can be written
    // for it (no Debian tool writes UDIF), and nothing here converts one.
    if (isUdifTrailer(tail)) return { id: 'bin', confidence: CONFIDENCE.FOREIGN };
  }
  if (isGzippedBlend(src.head)) return { id: 'blend', confidence: CONFIDENCE.SIGNATURE };
  return matchBinarySignature(src.head, src.size) ?? matchModel(src.head, src.size);
}

/**
 * The first block of a UDIF image: zlib, bzip2 or LZFSE compressed, or a raw Apple partition map,
 * MBR or GPT. Only these heads cost the read of the trailer, so other files are read no further.
 */
function mayOpenDiskImage(h: Buffer): boolean {
  const zlib = h.length > 2 && (h[0]! & 0x0f) === 8 && ((h[0]! << 8) | h[1]!) % 31 === 0;
  const text = h.toString('latin1', 0, 4);
  const mbr = h.length >= 512 && h[510] === 0x55 && h[511] === 0xaa;
  return zlib || text.startsWith('BZh') || text.startsWith('bvx') || text === 'ER\x02\x00' || mbr;
}

/**
 * Blender saves compressed files as one gzip stream of the whole file (Zstandard since 3.0, which
 * Node 20 cannot inflate, so those stay `zst`): the first inflated bytes carry the Blender header.
 */
function isGzippedBlend(head: Buffer): boolean {
  if (head.length < 18 || head[0] !== 0x1f || head[1] !== 0x8b || head[2] !== 0x08) return false;
  const flags = head[3]!;
  let at = 10;
  if (flags & 0x04) at += 2 + head.readUInt16LE(10);
  for (const bit of [0x08, 0x10]) if (flags & bit) at = head.indexOf(0, at) + 1;
  if (flags & 0x02) at += 2;
  if (at <= 0 || at >= head.length) return false;
  try {
    const start = inflateRawSync(head.subarray(at, at + 1024), { finishFlush: constants.Z_SYNC_FLUSH });
    return start.toString('latin1', 0, 7) === 'BLENDER';
  } catch {
    return false;
  }
}

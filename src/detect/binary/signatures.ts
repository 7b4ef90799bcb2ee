import { CONFIDENCE, type Finding } from '../types.js';

// Compressed files, archives, packages, disk images, executables and fonts told from their
// headers, with the variants their specifications and the detection databases (libmagic's
// Magdir, Tika, PRONOM) know. Checked before file-type, whose signatures for several of these are
// looser (any `78 01` is a DMG, `ISc(` an InstallShield file is a Cabinet, any `BZh` is bzip2).

const at = (head: Buffer, offset: number, ascii: string) =>
  head.length >= offset + ascii.length && head.toString('latin1', offset, offset + ascii.length) === ascii;
const bytes = (head: Buffer, offset: number, ...values: number[]) =>
  head.length >= offset + values.length && values.every((v, i) => head[offset + i] === v);

type Test = (head: Buffer, size: number) => string | false;

const TESTS: Test[] = [
  // bzip2: a block size digit, then a block's or the end of stream's 48-bit magic (an empty file).
  (h) => at(h, 0, 'BZh') && /[1-9]/.test(String.fromCharCode(h[3] ?? 0)) && bzip2Block(h) && 'bz2',
  (h) => bytes(h, 0, 0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00) && 'xz',
  (h) => zstdOrLz4(h),
  (h) => at(h, 0, 'LZIP') && (h[4] === 0 || h[4] === 1) && 'lz',
  // compress(1): `1F 9D`, then the flags byte: bits 5-6 unused, at most 16 bits a code.
  (h) => bytes(h, 0, 0x1f, 0x9d) && h.length > 2 && (h[2]! & 0x60) === 0 && (h[2]! & 0x1f) <= 16 && 'z',
  // RAR 1.5 to 4.x, RAR 5, and the RAR 1.4 marker.
  (h) => (at(h, 0, 'Rar!\x1a\x07\x00') || at(h, 0, 'Rar!\x1a\x07\x01\x00') || at(h, 0, 'RE~^')) && 'rar',
  (h) => at(h, 0, 'MSCF') && bytes(h, 4, 0, 0, 0, 0) && 'cab',
  // ar: the GNU, BSD and System V layouts share the magic; a thin archive (`ar T`) has its own.
  // A Debian package is an ar archive whose first member is `debian-binary`.
  (h) => (at(h, 0, '!<arch>\n') ? (at(h, 8, 'debian-binary') ? 'deb' : 'ar') : at(h, 0, '!<thin>\n') && 'ar'),
  (h) => bytes(h, 0, 0xed, 0xab, 0xee, 0xdb) && 'rpm',
  // cpio: portable ASCII (odc), new ASCII (newc) and its CRC form, old binary in either byte order.
  (h) => (/^070707[0-7]{70}/.test(h.toString('latin1', 0, 76)) || bytes(h, 0, 0xc7, 0x71)) && 'cpio',
  (h) => /^07070[12][0-9A-Fa-f]{104}/.test(h.toString('latin1', 0, 110)) && 'cpio',
  (h) => bytes(h, 0, 0x71, 0xc7) && h.length >= 26 && 'cpio',
  // ISO 9660 (a plain image or a hybrid one that opens with an MBR), its High Sierra ancestor,
  // and UDF, whose volume recognition sequence sits where ISO 9660's descriptors do.
  (h) => (at(h, 32769, 'CD001') || at(h, 32777, 'CDROM') || at(h, 32769, 'BEA01')) && 'iso',
  (h) => at(h, 0, 'xar!') && h.length >= 8 && h.readUInt16BE(4) >= 28 && 'xar',
  // LHA: the compression method at offset 2 of every header level.
  (h) => /^-(lh[0-9a-ed]|lz[s45]|pm[0-2s])-$/.test(h.toString('latin1', 2, 7)) && 'lzh',
  (h) => bytes(h, 0, 0x60, 0xea) && h.length >= 4 && h.readUInt16LE(2) <= 2600 && 'arj',
  // Executables and bytecode.
  (h) => at(h, 0, 'MZ') && h.length >= 64 && 'exe',
  (h) => bytes(h, 0, 0x7f, 0x45, 0x4c, 0x46) && 'elf',
  (h) => machO(h) && 'macho',
  (h) => bytes(h, 0, 0xca, 0xfe, 0xba, 0xbe) && h.length >= 8 && h.readUInt16BE(6) >= 45 && 'class',
  (h) => bytes(h, 0, 0x00, 0x61, 0x73, 0x6d) && bytes(h, 4, 0x01, 0x00, 0x00, 0x00) && 'wasm',
  (h) => /^dex\n\d{3}\0$/.test(h.toString('latin1', 0, 8)) && 'dex',
  // Fonts: sfnt with TrueType outlines (the OpenType version or Apple's `true`), with CFF
  // outlines (`OTTO`), their WOFF wrappings, collections, and Embedded OpenType.
  (h) => (bytes(h, 0, 0x00, 0x01, 0x00, 0x00) || at(h, 0, 'true')) && sfntTables(h) && 'ttf',
  (h) => at(h, 0, 'OTTO') && sfntTables(h) && 'otf',
  (h) => at(h, 0, 'wOFF') && 'woff',
  (h) => at(h, 0, 'wOF2') && 'woff2',
  (h) => at(h, 0, 'ttcf') && 'ttc',
  (h, size) => eot(h, size) && 'eot',
];

/** The format of a binary head, or undefined. `size` is the whole file's length. */
export function matchBinarySignature(head: Buffer, size: number): Finding | undefined {
  for (const test of TESTS) {
    const id = test(head, size);
    if (id) return { id, confidence: CONFIDENCE.SIGNATURE };
  }
  if (isLegacyLzma(head)) return { id: 'lzma', confidence: CONFIDENCE.HEURISTIC };
  return undefined;
}

function bzip2Block(h: Buffer): boolean {
  return bytes(h, 4, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59) || bytes(h, 4, 0x17, 0x72, 0x45, 0x38, 0x50, 0x90);
}

/**
 * Zstandard and LZ4 frames, each with their magic, LZ4's legacy frame (`lz4 -l`), and the
 * skippable frames both formats share (pzstd opens its files with one): the frame after it names
 * the format.
 */
function zstdOrLz4(h: Buffer): string | false {
  let offset = 0;
  while (h.length >= offset + 8 && (h.readUInt32LE(offset) & 0xfffffff0) === 0x184d2a50)
    offset += 8 + h.readUInt32LE(offset + 4);
  if (bytes(h, offset, 0x28, 0xb5, 0x2f, 0xfd)) return 'zst';
  if (bytes(h, offset, 0x04, 0x22, 0x4d, 0x18) || bytes(h, offset, 0x02, 0x21, 0x4c, 0x18)) return 'lz4';
  return false;
}

/** Mach-O in 32 or 64 bits, either byte order, and universal (fat) binaries of up to 30 slices. */
function machO(h: Buffer): boolean {
  if (h.length < 8) return false;
  const magic = h.readUInt32BE(0);
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(magic)) return true;
  // CAFEBABE is a Java class too: its minor and major versions read as a much larger count.
  return (magic === 0xcafebabe || magic === 0xcafebabf) && h.readUInt32BE(4) > 0 && h.readUInt32BE(4) <= 30;
}

/** An sfnt's table count is small and its search range agrees with it (OpenType's table directory). */
function sfntTables(h: Buffer): boolean {
  if (h.length < 12) return false;
  const tables = h.readUInt16BE(4);
  const searchRange = h.readUInt16BE(6);
  return tables > 0 && tables < 100 && searchRange === 16 * 2 ** Math.floor(Math.log2(tables));
}

/** Embedded OpenType: its own size first, a known version, and the `LP` magic at offset 34. */
function eot(h: Buffer, size: number): boolean {
  if (h.length < 36 || h.readUInt16LE(34) !== 0x504c) return false;
  const version = h.readUInt32LE(8);
  return [0x00010000, 0x00020001, 0x00020002].includes(version) && h.readUInt32LE(0) === size;
}

/**
 * The legacy `.lzma` (LZMA-Alone) header has no magic: a properties byte (lc/lp/pb, at most 224;
 * 0x5D from every common writer), a dictionary size of 2^n or 2^n + 2^(n-1), and the unpacked size
 * or -1 for unknown. As libmagic does, only the common properties and sane sizes are taken.
 */
function isLegacyLzma(h: Buffer): boolean {
  if (h.length < 14 || h[0] !== 0x5d) return false;
  const dict = h.readUInt32LE(1);
  const pow = Math.floor(Math.log2(dict));
  if (dict < 4096 || (dict !== 2 ** pow && dict !== 2 ** pow + 2 ** (pow - 1))) return false;
  const low = h.readUInt32LE(5);
  const high = h.readUInt32LE(9);
  return (low === 0xffffffff && high === 0xffffffff) || high < 0x10000;
}

/** How many bytes of the end of a file an Apple disk image's UDIF trailer (`koly`) takes. */
export const UDIF_TRAILER = 512;

/**
 * An Apple disk image (UDIF) is told by its 512-byte `koly` trailer at the end of the file: its
 * head is the image's first block, compressed (zlib, bzip2, LZFSE) or raw, so it says nothing.
 */
export function isUdifTrailer(tail: Buffer): boolean {
  return tail.length === UDIF_TRAILER && at(tail, 0, 'koly') && tail.readUInt32BE(8) === UDIF_TRAILER;
}

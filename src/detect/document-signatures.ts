import { CONFIDENCE, type Finding } from './types.js';

const at = (head: Buffer, offset: number, ascii: string) =>
  head.length >= offset + ascii.length && head.toString('latin1', offset, offset + ascii.length) === ascii;

type Test = (head: Buffer) => Finding | undefined;

const sure = (id: string, version?: string): Finding => ({
  id,
  confidence: CONFIDENCE.SIGNATURE,
  ...(version ? { version } : {}),
});

/**
 * Lotus 1-2-3 opens with a BOF record (type 0, length 2 or 26) whose version word names the
 * release: WKS (release 1A), WK1 (2.x), WK3 (3.x), WK4 (4 and later).
 */
function lotus(h: Buffer): Finding | undefined {
  if (h.length < 8 || h.readUInt16LE(0) !== 0) return undefined;
  const length = h.readUInt16LE(2);
  const version = h.readUInt16LE(4);
  if (length === 2 && version === 0x0404) return sure('wk1', 'Lotus 1-2-3 release 1A (WKS)');
  if (length === 2 && version === 0x0406) return sure('wk1', 'Lotus 1-2-3 release 2 (WK1)');
  if (length === 26 && version === 0x1000) return sure('wk1', 'Lotus 1-2-3 release 3 (WK3)');
  if (length === 26 && version === 0x1002) return sure('wk1', 'Lotus 1-2-3 release 4 (WK4)');
  return undefined;
}

/**
 * Excel before 5.0 wrote a bare BIFF stream, not a compound file: its first record is a BOF
 * whose record type names the BIFF version (2, 3 or 4), and whose document type says worksheet
 * (0x10) or, for BIFF4W, workbook (0x100).
 */
function bareBiff(h: Buffer): Finding | undefined {
  if (h.length < 8) return undefined;
  const type = h.readUInt16LE(0);
  const length = h.readUInt16LE(2);
  const docType = h.readUInt16LE(6);
  if (type === 0x0009 && length === 4 && (docType === 0x10 || docType === 0x20))
    return sure('xls', 'Excel 2.x (BIFF2)');
  if (type === 0x0209 && length === 6 && (docType === 0x10 || docType === 0x20))
    return sure('xls', 'Excel 3.0 (BIFF3)');
  if (type === 0x0409 && length === 6 && [0x10, 0x20, 0x100].includes(docType))
    return sure('xls', docType === 0x100 ? 'Excel 4.0 workbook (BIFF4W)' : 'Excel 4.0 (BIFF4)');
  return undefined;
}

/**
 * Word for Windows 1.x and 2.0 files open with their FIB, before Word 6 moved to OLE2: its magic
 * (wIdent) and file format version (nFib 33 and 45), then a zero product version.
 */
function oldWord(h: Buffer): Finding | undefined {
  if (at(h, 0, '\x9b\xa5\x21\x00')) return sure('doc', 'Word for Windows 1.x');
  if (at(h, 0, '\xdb\xa5\x2d\x00\x00\x00')) return sure('doc', 'Word for Windows 2.0');
  return undefined;
}

/** dBASE: a version byte, a plausible last-update date and header and record sizes that fit. */
function dbase(h: Buffer): Finding | undefined {
  if (h.length < 64 || ![0x02, 0x03, 0x30, 0x31, 0x43, 0x63, 0x83, 0x8b, 0xcb, 0xf5].includes(h[0]!))
    return undefined;
  const [month, day] = [h[2]!, h[3]!];
  const headerBytes = h.readUInt16LE(8);
  const recordBytes = h.readUInt16LE(10);
  if (month < 1 || month > 12 || day < 1 || day > 31 || recordBytes === 0) return undefined;
  // The header is 32 bytes and 32 per field, then a 0x0D terminator (Visual FoxPro adds 263).
  if (headerBytes < 65 || (headerBytes - 1) % 32 > 8 || headerBytes > h.length) return undefined;
  const terminator = h.subarray(32, headerBytes).indexOf(0x0d, Math.floor((headerBytes - 33) / 32) * 32);
  return terminator >= 0 ? { id: 'dbf', confidence: CONFIDENCE.TEXT } : undefined;
}

/**
 * Signatures of the document and data formats that neither the in-house table nor file-type
 * knows, from their specifications (and libmagic's and Tika's tables for the facts).
 */
const TESTS: Test[] = [
  // WordPerfect's prefix names the product (1 = WordPerfect) and file type (10 = document).
  (h) => (at(h, 0, '\xffWPC') && h[8] === 1 && h[9] === 0x0a ? sure('wpd') : undefined),
  (h) => (at(h, 0, 'HWP Document File') ? sure('hwp', 'HWP 3.0') : undefined),
  (h) =>
    at(h, 0, 'RIFF') && /^CDR[0-9A-Za-z]|^cdr[0-9A-Za-z]/.test(h.toString('latin1', 8, 12))
      ? sure('cdr')
      : undefined,
  (h) => (at(h, 0, 'AT&TFORM') && /^DJV[UMI]/.test(h.toString('latin1', 12, 16)) ? sure('djvu') : undefined),
  (h) => (at(h, 0, 'ITOLITLS') ? sure('lit') : undefined),
  (h) => (at(h, 0, '\x00\x01\x00\x00Standard Jet DB') ? sure('mdb', 'Access 97 (Jet 3)') : undefined),
  (h) =>
    at(h, 0, '\x00\x01\x00\x00Standard ACE DB') ? sure('mdb', 'Access 2007 or later (ACE)') : undefined,
  (h) => (at(h, 0, '\x89HDF\r\n\x1a\n') ? sure('hdf5') : undefined),
  (h) => (at(h, 0, 'CDF\x01') || at(h, 0, 'CDF\x02') || at(h, 0, 'CDF\x05') ? sure('netcdf') : undefined),
  (h) => (at(h, 0, '\x93NUMPY') ? sure('npy') : undefined),
  (h) => (at(h, 0, 'bplist0') ? sure('plist', 'binary') : undefined),
  (h) => (at(h, 0, 'ORC') && h.length > 3 ? sure('orc') : undefined),
  (h) =>
    at(h, 0, '\x0a\x0d\x0d\x0a') && (at(h, 8, '\x4d\x3c\x2b\x1a') || at(h, 8, '\x1a\x2b\x3c\x4d'))
      ? sure('pcapng')
      : undefined,
  // A torrent is a bencoded dictionary whose keys come sorted: announce or info lead.
  (h) =>
    /^d(8:announce|13:announce-list|4:info|7:comment|10:created by|13:creation date)/.test(
      h.toString('latin1', 0, 20),
    )
      ? sure('torrent')
      : undefined,
  lotus,
  bareBiff,
  oldWord,
];

/** The document or data format whose signature opens the head, if any. */
export function matchDocumentSignature(head: Buffer): Finding | undefined {
  for (const test of TESTS) {
    const found = test(head);
    if (found) return found;
  }
  return undefined;
}

/** dBASE has no magic number: tried only once every signature has declined the bytes. */
export const matchDbase = dbase;

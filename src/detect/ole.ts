import type { ByteSource } from './source.js';
import { CONFIDENCE, type Finding } from './types.js';

const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const END_OF_CHAIN = 0xfffffffe;
/** Top-level streams sit in the first directory sectors; stop following the chain after these. */
const MAX_DIRECTORY_SECTORS = 32;
/** Hops along a chain to reach a stream's first bytes in the mini stream; far past any document's. */
const MAX_CHAIN_HOPS = 4096;
const MINI_SECTOR = 64;

/**
 * The stream (or storage) each compound-file format keeps its content in, with the version it
 * implies where that one name settles it: Excel 5.0/95 wrote BIFF5 into `Book`, Excel 97 and later
 * BIFF8 into `Workbook`; PowerPoint 4.0 kept its slides in `PP40`.
 */
const STREAM_IDS: Array<[stream: string, id: string, version?: string]> = [
  ['WordDocument', 'doc'],
  ['Workbook', 'xls'],
  ['Book', 'xls', 'Excel 5.0/95 (BIFF5)'],
  ['PowerPoint Document', 'ppt'],
  ['PP40', 'ppt', 'PowerPoint 4.0'],
  ['VisioDocument', 'vsd'],
  ['Quill', 'pub'],
  ['__properties_version1.0', 'msg'],
  ['MatOST', 'wps'],
  ['FileHeader', 'hwp', 'HWP 5.0'],
];

/** The root storage's class id of a Windows Installer database and patch (ECMA/MS-CFB `CLSID`). */
const MSI_CLASS_IDS = new Set([
  '84100c00-0000-0000-c000-000000000046',
  '86100c00-0000-0000-c000-000000000046',
]);

/**
 * A password-protected DOCX, XLSX or PPTX is a compound file holding the encrypted package
 * (MS-OFFCRYPTO): which of the three it is lies inside the encryption, so the declared format
 * chooses among them (detect() in index.ts).
 */
export const ENCRYPTED_OOXML: readonly string[] = ['docx', 'xlsx', 'pptx'];

export function isOleSignature(head: Buffer): boolean {
  return head.length >= 8 && head.subarray(0, 8).equals(OLE_SIGNATURE);
}

interface DirEntry {
  type: number;
  start: number;
  size: number;
}

/**
 * Reads the directory entries of an OLE2 compound file (following the directory chain
 * through the FAT) and names the Office format by its main stream, with `encrypted` when the
 * document is password-protected. Other compound files (Outlook messages, installers) are not
 * formats the registry knows.
 */
export async function inspectOle(src: ByteSource): Promise<Finding> {
  const file = new CompoundFile(src);
  const entries = await file.directory();
  if (entries.has('EncryptedPackage') && entries.has('EncryptionInfo')) {
    return {
      id: 'docx',
      confidence: CONFIDENCE.WEAK,
      encrypted: true,
      oneOf: ENCRYPTED_OOXML,
      version: 'encrypted OOXML',
    };
  }
  for (const [stream, id, named] of STREAM_IDS) {
    const entry = entries.get(stream);
    if (!entry) continue;
    const encrypted = await legacyEncrypted(file, id, entry, entries.get('Current User'));
    const version = named ?? (id === 'doc' ? wordVersion(await file.streamHead(entry)) : undefined);
    return {
      id,
      confidence: CONFIDENCE.CONTAINER,
      ...(encrypted ? { encrypted } : {}),
      ...(version ? { version } : {}),
    };
  }
  if (MSI_CLASS_IDS.has(file.rootClassId)) return { id: 'msi', confidence: CONFIDENCE.CONTAINER };
  return (entries.size === 0 && streamStartInHead(src.head)) || { id: 'bin', confidence: CONFIDENCE.FOREIGN };
}

/**
 * Whether a Word, Excel or PowerPoint 97 document says it is encrypted, from the first bytes of
 * its streams: Word's FIB flag fEncrypted, Excel's FILEPASS record right after the globals' BOF,
 * PowerPoint's CurrentUserAtom header token.
 */
async function legacyEncrypted(
  file: CompoundFile,
  id: string,
  main: DirEntry,
  currentUser: DirEntry | undefined,
): Promise<boolean> {
  if (id === 'doc') {
    const fib = await file.streamHead(main);
    return fib.length >= 12 && (fib.readUInt16LE(0x0a) & 0x0100) !== 0;
  }
  if (id === 'xls') return biffHasFilePass(await file.streamHead(main));
  if (!currentUser) return false;
  const atom = await file.streamHead(currentUser);
  return atom.length >= 16 && atom.readUInt32LE(12) === 0xf3d1c4df;
}

/**
 * Word 6.0 and Word 95 wrote an older FIB into the same `WordDocument` stream: its nFib is 101 to
 * 105 where Word 97 and later write 193 or more. Engines that read one may not read the other.
 */
function wordVersion(fib: Buffer): string | undefined {
  if (fib.length < 4) return undefined;
  const nFib = fib.readUInt16LE(2);
  return nFib >= 101 && nFib <= 105 ? 'Word 6.0/95' : undefined;
}

/** FILEPASS (0x2F) among the first records of the workbook globals, before their end. */
function biffHasFilePass(head: Buffer): boolean {
  for (let at = 0; at + 4 <= head.length; ) {
    const type = head.readUInt16LE(at);
    if (type === 0x002f) return true;
    if (type === 0x000a) return false;
    at += 4 + head.readUInt16LE(at + 2);
  }
  return false;
}

/** BIFF8's workbook BOF record and Word's FIB magic, as they start their stream's first sector. */
const STREAM_STARTS: Array<[bytes: Buffer, id: string]> = [
  [Buffer.from([0x09, 0x08, 0x10, 0x00, 0x00, 0x06, 0x05, 0x00]), 'xls'],
  [Buffer.from([0xec, 0xa5, 0xc1, 0x00]), 'doc'],
];

/**
 * A truncated compound file whose directory lies beyond the end: the main stream's first
 * sector may still be in the head, at a 512-byte sector boundary.
 */
function streamStartInHead(head: Buffer): Finding | undefined {
  for (let at = 512; at + 8 <= head.length; at += 512) {
    for (const [bytes, id] of STREAM_STARTS)
      if (head.subarray(at, at + bytes.length).equals(bytes)) return { id, confidence: CONFIDENCE.WEAK };
  }
  return undefined;
}

/** Bounded reads of a compound file: its top directory and the first bytes of a stream. */
class CompoundFile {
  private readonly sectorSize: number = 0;
  private readonly fatCache = new Map<number, Buffer>();
  private root?: DirEntry;
  /** The root storage's CLSID as text (lower case), once `directory()` has read it. */
  rootClassId = '';

  constructor(private readonly src: ByteSource) {
    const header = src.head;
    if (header.length < 512) return;
    const shift = header.readUInt16LE(0x1e);
    if (shift === 9 || shift === 12) this.sectorSize = 1 << shift;
  }

  private readSector(id: number): Promise<Buffer> {
    return this.src.read((id + 1) * this.sectorSize, this.sectorSize);
  }

  private async nextSector(id: number): Promise<number> {
    // The header lists the first 109 FAT sectors, enough for files up to ~7 MB (512-byte sectors)
    // or ~3.5 GB (4096-byte sectors); further FAT sectors would need the DIFAT chain.
    const perSector = this.sectorSize / 4;
    const index = Math.floor(id / perSector);
    const fatSectorId = index < 109 ? this.src.head.readUInt32LE(0x4c + index * 4) : END_OF_CHAIN;
    if (fatSectorId >= END_OF_CHAIN - 1) return END_OF_CHAIN;
    let fat = this.fatCache.get(fatSectorId);
    if (!fat) {
      fat = await this.readSector(fatSectorId);
      this.fatCache.set(fatSectorId, fat);
    }
    const at = (id % perSector) * 4;
    return at + 4 <= fat.length ? fat.readUInt32LE(at) : END_OF_CHAIN;
  }

  /** Storages and streams of the first directory sectors, by name. */
  async directory(): Promise<Map<string, DirEntry>> {
    const entries = new Map<string, DirEntry>();
    if (!this.sectorSize) return entries;
    let sector = this.src.head.readUInt32LE(0x30);
    for (let n = 0; n < MAX_DIRECTORY_SECTORS && sector < END_OF_CHAIN - 4; n++) {
      const dir = await this.readSector(sector);
      for (let at = 0; at + 128 <= dir.length; at += 128) {
        const nameBytes = dir.readUInt16LE(at + 0x40);
        const type = dir[at + 0x42] ?? 0;
        const entry = { type, start: dir.readUInt32LE(at + 0x74), size: dir.readUInt32LE(at + 0x78) };
        if (type === 5) {
          this.root = entry;
          this.rootClassId = classIdText(dir.subarray(at + 0x50, at + 0x60));
        } else if (nameBytes >= 2 && nameBytes <= 64 && (type === 1 || type === 2))
          entries.set(dir.toString('utf16le', at, at + nameBytes - 2), entry);
      }
      sector = await this.nextSector(sector);
    }
    return entries;
  }

  /**
   * The first bytes of a stream: its first sector, or its first 64-byte mini sector when it is
   * small enough to live in the mini stream. Enough for the headers encryption is flagged in.
   */
  async streamHead(entry: DirEntry): Promise<Buffer> {
    if (!this.sectorSize || entry.start >= END_OF_CHAIN - 4) return Buffer.alloc(0);
    const cutoff = this.src.head.readUInt32LE(0x38);
    if (entry.size >= cutoff) {
      return (await this.readSector(entry.start)).subarray(0, Math.min(entry.size, this.sectorSize));
    }
    if (!this.root) return Buffer.alloc(0);
    // The mini stream is the root entry's chain of regular sectors.
    const offset = entry.start * MINI_SECTOR;
    let sector = this.root.start;
    for (let hop = Math.floor(offset / this.sectorSize); hop > 0; hop--) {
      if (hop > MAX_CHAIN_HOPS || sector >= END_OF_CHAIN - 4) return Buffer.alloc(0);
      sector = await this.nextSector(sector);
    }
    if (sector >= END_OF_CHAIN - 4) return Buffer.alloc(0);
    const within = offset % this.sectorSize;
    const bytes = await this.readSector(sector);
    return bytes.subarray(within, within + Math.min(entry.size, MINI_SECTOR));
  }
}

/** A CLSID's 16 bytes as hex in the order they are stored, grouped 8-4-4-4-12. */
function classIdText(b: Buffer): string {
  if (b.length < 16) return '';
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

import type { ByteSource } from './source.js';
import { CONFIDENCE, type Finding } from './types.js';

const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const END_OF_CHAIN = 0xfffffffe;
/** Top-level streams sit in the first directory sectors; stop following the chain after these. */
const MAX_DIRECTORY_SECTORS = 32;

/** The stream each legacy Office format keeps its content in. */
const STREAM_IDS: Array<[stream: string, id: string]> = [
  ['WordDocument', 'doc'],
  ['Workbook', 'xls'],
  ['Book', 'xls'],
  ['PowerPoint Document', 'ppt'],
];

export function isOleSignature(head: Buffer): boolean {
  return head.length >= 8 && head.subarray(0, 8).equals(OLE_SIGNATURE);
}

/**
 * Reads the directory entries of an OLE2 compound file (following the directory chain
 * through the FAT) and names the Office format by its main stream. Other compound files
 * (encrypted OOXML, Outlook messages, installers) are not formats the registry knows.
 */
export async function inspectOle(src: ByteSource): Promise<Finding> {
  const names = await readDirectoryNames(src);
  for (const [stream, id] of STREAM_IDS) {
    if (names.has(stream)) return { id, confidence: CONFIDENCE.CONTAINER };
  }
  return (names.size === 0 && streamStartInHead(src.head)) || { id: 'bin', confidence: CONFIDENCE.FOREIGN };
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

async function readDirectoryNames(src: ByteSource): Promise<Set<string>> {
  const header = src.head;
  const names = new Set<string>();
  if (header.length < 512) return names;
  const sectorShift = header.readUInt16LE(0x1e);
  if (sectorShift !== 9 && sectorShift !== 12) return names;
  const sectorSize = 1 << sectorShift;
  const fatIdsPerSector = sectorSize / 4;
  // The header lists the first 109 FAT sectors, enough for files up to ~7 MB (512-byte sectors)
  // or ~3.5 GB (4096-byte sectors); further FAT sectors would need the DIFAT chain.
  const headerFat = (i: number) => (i < 109 ? header.readUInt32LE(0x4c + i * 4) : END_OF_CHAIN);
  const fatCache = new Map<number, Buffer>();
  const readSector = (id: number) => src.read((id + 1) * sectorSize, sectorSize);
  const nextSector = async (id: number): Promise<number> => {
    const fatIndex = Math.floor(id / fatIdsPerSector);
    const fatSectorId = headerFat(fatIndex);
    if (fatSectorId >= END_OF_CHAIN - 1) return END_OF_CHAIN;
    let fat = fatCache.get(fatSectorId);
    if (!fat) {
      fat = await readSector(fatSectorId);
      fatCache.set(fatSectorId, fat);
    }
    const at = (id % fatIdsPerSector) * 4;
    return at + 4 <= fat.length ? fat.readUInt32LE(at) : END_OF_CHAIN;
  };

  let sector = header.readUInt32LE(0x30);
  for (let n = 0; n < MAX_DIRECTORY_SECTORS && sector < END_OF_CHAIN - 4; n++) {
    const dir = await readSector(sector);
    for (let at = 0; at + 128 <= dir.length; at += 128) {
      const nameBytes = dir.readUInt16LE(at + 0x40);
      const type = dir[at + 0x42];
      if (nameBytes >= 2 && nameBytes <= 64 && (type === 1 || type === 2)) {
        names.add(dir.toString('utf16le', at, at + nameBytes - 2));
      }
    }
    if (STREAM_IDS.some(([s]) => names.has(s))) break;
    sector = await nextSector(sector);
  }
  return names;
}

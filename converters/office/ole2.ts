/**
 * A minimal reader for OLE2 compound files (the container of .doc/.xls/.ppt and of encrypted
 * OOXML): enough to list stream names and read a stream, so the office converter can tell a
 * password-protected file before handing it to an engine that would only say "could not load".
 */

export const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const END_OF_CHAIN = 0xfffffffe;
const FREE_SECT = 0xffffffff;
const MAX_SECTOR_VALUE = 0xfffffffa;
const NO_STREAM = 0xffffffff;

export interface Ole2Stream {
  name: string;
  /** 1 storage, 2 stream, 5 root. */
  type: number;
  start: number;
  size: number;
}

export function isOle2(bytes: Buffer): boolean {
  return bytes.length >= 512 && bytes.subarray(0, 8).equals(OLE2_MAGIC);
}

export class Ole2File {
  readonly entries: Ole2Stream[];
  private readonly sectorSize: number;
  private readonly miniSectorSize: number;
  private readonly miniCutoff: number;
  private readonly fat: number[];
  private readonly miniFat: number[];
  private miniStream?: Buffer;

  /** Throws on a file that is not a well-formed compound file. */
  constructor(private readonly bytes: Buffer) {
    if (!isOle2(bytes)) throw new Error('not an OLE2 compound file');
    this.sectorSize = 1 << bytes.readUInt16LE(0x1e);
    this.miniSectorSize = 1 << bytes.readUInt16LE(0x20);
    this.miniCutoff = bytes.readUInt32LE(0x38);
    if (this.sectorSize !== 512 && this.sectorSize !== 4096) throw new Error('bad sector size');
    this.fat = this.readFat();
    this.miniFat = this.u32s(this.chainBytes(bytes.readUInt32LE(0x3c)));
    this.entries = this.readDirectory(bytes.readUInt32LE(0x30));
  }

  /** The stream's bytes, or undefined when there is no stream of that name (case-insensitive). */
  stream(name: string): Buffer | undefined {
    const entry = this.entries.find((e) => e.type === 2 && e.name.toLowerCase() === name.toLowerCase());
    if (!entry) return undefined;
    if (entry.size < this.miniCutoff) {
      this.miniStream ??= this.chainBytes(this.entries.find((e) => e.type === 5)?.start ?? END_OF_CHAIN);
      const out: Buffer[] = [];
      for (const sector of this.chain(entry.start, this.miniFat)) {
        out.push(this.miniStream.subarray(sector * this.miniSectorSize, (sector + 1) * this.miniSectorSize));
      }
      return Buffer.concat(out).subarray(0, entry.size);
    }
    return this.chainBytes(entry.start).subarray(0, entry.size);
  }

  private sector(n: number): Buffer {
    const offset = (n + 1) * this.sectorSize;
    if (offset + this.sectorSize > this.bytes.length) throw new Error('sector out of range');
    return this.bytes.subarray(offset, offset + this.sectorSize);
  }

  private u32s(buf: Buffer): number[] {
    const out: number[] = [];
    for (let i = 0; i + 4 <= buf.length; i += 4) out.push(buf.readUInt32LE(i));
    return out;
  }

  private readFat(): number[] {
    const fatSectors = this.u32s(this.bytes.subarray(0x4c, 0x200));
    let difat = this.bytes.readUInt32LE(0x44);
    // Guards against loops in a damaged DIFAT chain.
    for (let hops = 0; difat <= MAX_SECTOR_VALUE && hops < 10_000; hops++) {
      const ids = this.u32s(this.sector(difat));
      difat = ids.pop() ?? END_OF_CHAIN;
      fatSectors.push(...ids);
    }
    const fat: number[] = [];
    for (const s of fatSectors) if (s <= MAX_SECTOR_VALUE) fat.push(...this.u32s(this.sector(s)));
    return fat;
  }

  private *chain(start: number, table: number[]): Generator<number> {
    const seen = new Set<number>();
    for (
      let s = start;
      s !== END_OF_CHAIN && s !== FREE_SECT && s <= MAX_SECTOR_VALUE;
      s = table[s] ?? END_OF_CHAIN
    ) {
      if (seen.has(s)) throw new Error('sector chain loops');
      seen.add(s);
      yield s;
    }
  }

  private chainBytes(start: number): Buffer {
    const parts: Buffer[] = [];
    for (const s of this.chain(start, this.fat)) parts.push(this.sector(s));
    return Buffer.concat(parts);
  }

  private readDirectory(start: number): Ole2Stream[] {
    const dir = this.chainBytes(start);
    const entries: Ole2Stream[] = [];
    for (let off = 0; off + 128 <= dir.length; off += 128) {
      const type = dir[off + 0x42] ?? 0;
      if (type === 0) continue;
      const nameLength = Math.min(dir.readUInt16LE(off + 0x40), 64);
      const name = dir.subarray(off, off + Math.max(0, nameLength - 2)).toString('utf16le');
      const start = dir.readUInt32LE(off + 0x74);
      entries.push({
        name,
        type,
        start: start === NO_STREAM ? END_OF_CHAIN : start,
        size: dir.readUInt32LE(off + 0x78),
      });
    }
    return entries;
  }
}

import { constants, inflateRawSync } from 'node:zlib';
import type { ByteSource } from './source.js';
import { CONFIDENCE, type Finding } from './types.js';
import { classifyPackageNames, findingFromContentTypes, MIMETYPE_IDS } from './zip-documents.js';

const LOCAL_HEADER = 0x04034b50;
const LOCAL_HEADER_BYTES = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIR = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
/** The end record is 22 bytes plus a comment of at most 65535 bytes. */
const MAX_TAIL = 22 + 0xffff;
/** Central directories beyond this are read only in part: the names that tell formats apart come early. */
const MAX_CENTRAL_DIR = 4 * 1024 * 1024;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

export function isZipSignature(head: Buffer): boolean {
  if (head.length < 4) return false;
  const sig = head.readUInt32LE(0);
  return sig === LOCAL_HEADER || sig === END_OF_CENTRAL_DIR;
}

/**
 * Tells OOXML, ODF, EPUB and plain ZIP apart from the central directory (found through the
 * end record at the tail) and, for ODF/EPUB, the stored `mimetype` entry. A file whose
 * tail holds no end record is truncated: the local headers in the head still give a hint.
 */
export async function inspectZip(src: ByteSource): Promise<Finding> {
  const entries = await readCentralDirectory(src);
  if (!entries) return guessFromLocalHeaders(src);
  const text = (name: string) => {
    const entry = entries.find((e) => e.name === name);
    return entry ? readEntryText(src, entry) : Promise.resolve('');
  };
  // ODF requires `mimetype` to be the first entry, stored; writers that break the rule (it comes
  // later, or compressed) still name the format in it, so it is looked up by name and inflated.
  const mimetype = entries.find((e) => e.name === 'mimetype');
  if (mimetype) {
    const id = MIMETYPE_IDS[(await readEntryText(src, mimetype)).trim()];
    const encrypted = id !== undefined && id !== 'epub' && (await odfEncrypted(src, entries));
    if (id) return { id, confidence: CONFIDENCE.CONTAINER, ...(encrypted ? { encrypted } : {}) };
  }
  const names = entries.map((e) => e.name);
  const typed = names.includes('[Content_Types].xml')
    ? findingFromContentTypes(await text('[Content_Types].xml'))
    : undefined;
  if (typed) return typed;
  const found = classifyNames(names) ?? (await classifyPackageNames(names, text));
  return found ?? { id: 'zip', confidence: CONFIDENCE.CONTAINER };
}

/** Parts only an OOXML document has, telling a truncated one whose first entries are cut off. */
const OOXML_MAIN_PARTS =
  /^(word\/document\.xml|xl\/workbook\.xml|xl\/worksheets\/|ppt\/presentation\.xml|ppt\/slides\/)/;

/** `partial`: the names of a truncated archive, where `[Content_Types].xml` may be cut off. */
function classifyNames(names: string[], partial = false): Finding | undefined {
  const has = (n: string) => names.includes(n);
  const ooxml =
    has('[Content_Types].xml') ||
    (partial && (has('_rels/.rels') || names.some((n) => OOXML_MAIN_PARTS.test(n))));
  if (ooxml && names.some((n) => n.startsWith('word/')))
    return { id: 'docx', confidence: CONFIDENCE.CONTAINER };
  if (ooxml && names.some((n) => n.startsWith('xl/')))
    return { id: 'xlsx', confidence: CONFIDENCE.CONTAINER };
  if (ooxml && names.some((n) => n.startsWith('ppt/')))
    return { id: 'pptx', confidence: CONFIDENCE.CONTAINER };
  // An EPUB without its mimetype entry is malformed but still recognisable by its container file.
  if (has('META-INF/container.xml') && names.some((n) => /\.opf$/i.test(n)))
    return { id: 'epub', confidence: CONFIDENCE.TEXT };
  if (webPageEntry(names)) return { id: 'htmlzip', confidence: CONFIDENCE.CONTAINER };
  return undefined;
}

/**
 * The page of a ZIP that holds a web page with its assets: `index.html` at the top level, or in
 * the one folder everything else sits in (what zipping a folder gives). Undefined for other ZIPs.
 */
export function webPageEntry(all: readonly string[]): string | undefined {
  // macOS archivers add a __MACOSX folder of resource forks beside the real content.
  const names = all.filter((n) => !n.startsWith('__MACOSX/'));
  if (names.includes('index.html')) return 'index.html';
  const top = new Set(names.map((n) => n.split('/')[0]));
  const [only] = top;
  if (top.size !== 1 || !names.some((n) => n.includes('/'))) return undefined;
  return names.includes(`${only}/index.html`) ? `${only}/index.html` : undefined;
}

async function readCentralDirectory(src: ByteSource): Promise<Entry[] | undefined> {
  const tailStart = Math.max(0, src.size - MAX_TAIL);
  const tail = await src.read(tailStart, src.size - tailStart);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_OF_CENTRAL_DIR) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  if (cdOffset === 0xffffffff || cdSize === 0xffffffff || count === 0xffff) {
    const z64 = await readZip64End(src, tailStart + eocd);
    if (!z64) return undefined;
    ({ count, cdSize, cdOffset } = z64);
  }
  if (cdOffset + cdSize > src.size) return undefined;
  const cd = await src.read(cdOffset, Math.min(cdSize, MAX_CENTRAL_DIR));
  const entries = parseCentralDirectory(cd, count);
  // An end record pointing at no directory (overwritten, or cut and patched): as if there were none.
  return count > 0 && entries.length === 0 ? undefined : entries;
}

async function readZip64End(src: ByteSource, eocdAt: number) {
  const locator = await src.read(eocdAt - 20, 20);
  if (locator.length < 20 || locator.readUInt32LE(0) !== ZIP64_LOCATOR) return undefined;
  const endAt = Number(locator.readBigUInt64LE(8));
  const end = await src.read(endAt, 56);
  if (end.length < 56 || end.readUInt32LE(0) !== ZIP64_END) return undefined;
  return {
    count: Number(end.readBigUInt64LE(32)),
    cdSize: Number(end.readBigUInt64LE(40)),
    cdOffset: Number(end.readBigUInt64LE(48)),
  };
}

function parseCentralDirectory(cd: Buffer, count: number): Entry[] {
  const entries: Entry[] = [];
  let at = 0;
  while (entries.length < count && at + 46 <= cd.length && cd.readUInt32LE(at) === CENTRAL_HEADER) {
    const nameLen = cd.readUInt16LE(at + 28);
    const extraLen = cd.readUInt16LE(at + 30);
    const commentLen = cd.readUInt16LE(at + 32);
    if (at + 46 + nameLen > cd.length) break;
    entries.push({
      name: cd.toString('utf8', at + 46, at + 46 + nameLen),
      method: cd.readUInt16LE(at + 10),
      compressedSize: cd.readUInt32LE(at + 20),
      localOffset: cd.readUInt32LE(at + 42),
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** How much of an entry is read to name a format: its first bytes say it. */
const ENTRY_HEAD_BYTES = 16 * 1024;

/**
 * The first bytes of an entry as text: stored, or deflated and inflated only as far as its first
 * compressed bytes go (a sync flush gives what they hold without the rest of the stream).
 */
async function readEntryText(src: ByteSource, entry: Entry): Promise<string> {
  if (entry.method !== 0 && entry.method !== 8) return '';
  const local = await src.read(entry.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL_HEADER) return '';
  const dataAt = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const data = await src.read(dataAt, Math.min(entry.compressedSize, ENTRY_HEAD_BYTES));
  if (entry.method === 0) return data.toString('latin1');
  try {
    const bytes = inflateRawSync(data, {
      finishFlush: constants.Z_SYNC_FLUSH,
      maxOutputLength: 64 * ENTRY_HEAD_BYTES,
    });
    return bytes.toString('latin1');
  } catch {
    return '';
  }
}

/** A manifest is a few kB; one past this is not read. */
const MAX_MANIFEST_BYTES = 256 * 1024;

/** ODF marks every encrypted part with `manifest:encryption-data` in its manifest. */
async function odfEncrypted(src: ByteSource, entries: Entry[]): Promise<boolean> {
  const manifest = entries.find((e) => e.name === 'META-INF/manifest.xml');
  if (!manifest || manifest.compressedSize > MAX_MANIFEST_BYTES) return false;
  const local = await src.read(manifest.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL_HEADER) return false;
  const dataAt = manifest.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const data = await src.read(dataAt, manifest.compressedSize);
  try {
    const xml =
      manifest.method === 8 ? inflateRawSync(data, { maxOutputLength: 4 * MAX_MANIFEST_BYTES }) : data;
    return xml.includes('encryption-data');
  } catch {
    return false;
  }
}

/** How much of a ZIP without its central directory the local-header walk may read in all. */
const MAX_LOCAL_SCAN = 4 * 1024 * 1024;
const MAX_LOCAL_ENTRIES = 500;
const SCAN_CHUNK = 64 * 1024;

/**
 * Walks the local headers of a ZIP whose central directory is missing or unreadable (a truncated
 * download, a damaged tail): they still name the parts. An entry that gives its size up front is
 * hopped over; one written with a data descriptor (sizes after the data) is searched past for the
 * next header signature. The walk goes past the head, since a large first part (a thumbnail, a
 * picture) can push the parts that tell an OOXML document apart beyond it, and stops at a bound.
 */
async function guessFromLocalHeaders(src: ByteSource): Promise<Finding> {
  const names: string[] = [];
  let scanned = 0;
  let at = await nextLocalHeader(src, 0, () => scanned++);
  while (at >= 0 && names.length < MAX_LOCAL_ENTRIES && scanned * SCAN_CHUNK < MAX_LOCAL_SCAN) {
    const header = await src.read(at, 30);
    if (header.length < 30) break;
    const flags = header.readUInt16LE(6);
    const method = header.readUInt16LE(8);
    const size = header.readUInt32LE(18);
    const nameLen = header.readUInt16LE(26);
    const dataAt = at + 30 + nameLen + header.readUInt16LE(28);
    if (nameLen === 0 || nameLen > 512) break;
    const name = (await src.read(at + 30, nameLen)).toString('utf8');
    names.push(name);
    if (name === 'mimetype' && method === 0 && size <= 256) {
      const id = MIMETYPE_IDS[(await src.read(dataAt, size)).toString('latin1').trim()];
      if (id) return { id, confidence: CONFIDENCE.WEAK };
    }
    const found = classifyNames(names, true);
    if (found && found.id !== 'htmlzip') return { id: found.id, confidence: CONFIDENCE.WEAK };
    const sized = (flags & 0x08) === 0 && size !== 0xffffffff;
    if (!sized) {
      at = await nextLocalHeader(src, dataAt, () => scanned++);
      continue;
    }
    at = dataAt + size;
    const next = await src.read(at, 4);
    if (next.length < 4 || next.readUInt32LE(0) === CENTRAL_HEADER) break;
    if (next.readUInt32LE(0) !== LOCAL_HEADER) at = await nextLocalHeader(src, at, () => scanned++);
  }
  const byNames = classifyNames(names, true);
  return { id: byNames?.id ?? 'zip', confidence: CONFIDENCE.WEAK };
}

/** The offset of the next local header signature at or after `from`, or -1; `chunk` counts reads. */
async function nextLocalHeader(src: ByteSource, from: number, chunk: () => void): Promise<number> {
  for (let at = from; at < src.size; at += SCAN_CHUNK - 3) {
    chunk();
    const bytes = await src.read(at, SCAN_CHUNK);
    const i = bytes.indexOf(LOCAL_HEADER_BYTES);
    if (i >= 0) return at + i;
    if (bytes.length < SCAN_CHUNK) return -1;
  }
  return -1;
}

import { FileconvError } from '../errors/index.js';
import {
  type FormatDef,
  type FormatId,
  formatFromFilename,
  formatFromMime,
  getFormat,
  resolveFormat,
} from '../formats/index.js';
import { detectBinaryFormat } from './binary/index.js';
import { matchDbase, matchDocumentSignature } from './document-signatures.js';
import { isAudioOnlyMp4 } from './isobmff.js';
import { detectMagic } from './magic.js';
import { matchMediaSignature } from './media-signatures.js';
import { mpegAudio } from './mpeg-audio.js';
import { inspectOle, isOleSignature } from './ole.js';
import { flacAfterId3, matchSignature, pdfBehindJunk, startsAsText } from './signatures.js';
import { ByteSource, HEAD_BYTES } from './source.js';
import { sniffSubtitles } from './subtitles.js';
import { declaredEncoding } from './text/charset-declared.js';
import { decodeText, sniffText } from './text/index.js';
import { kin } from './text/nameable.js';
import { agreeWithName } from './text/named.js';
import { CONFIDENCE, type Finding } from './types.js';
import { inspectZip, isZipSignature } from './zip.js';

export { HEAD_BYTES } from './source.js';
export { CONFIDENCE, type Finding } from './types.js';

/** The detect report (api.md): what was declared, what the bytes are, and whether they agree. */
export interface DetectReport {
  /** The declared format id; the detected id when nothing declared a format. */
  declared: FormatId;
  detected: FormatId;
  match: boolean;
  /** Media type of the detected format. */
  mime: string;
  /** 0..1; see CONFIDENCE for what the levels mean. */
  confidence: number;
  /** Present (true) when the file is password-protected: an encrypted Office, ODF or OOXML document. */
  encrypted?: true;
  /** For text formats: the encoding the bytes are written in (`utf-8`, `big5`, `shift_jis`...). */
  encoding?: string;
  /** The version or variant the bytes name, where engines treat it apart (`Word 6.0/95`, `Excel 4.0 (BIFF4)`). */
  version?: string;
  /** How the encoding was found: its byte order mark, the text's declaration, or a guess from its bytes. */
  encoding_source?: 'bom' | 'declared' | 'guessed';
  /** How sure that is, 0 to 1 (1 for a mark or a declaration). */
  encoding_confidence?: number;
}

export interface DetectOptions {
  /** An explicit format (id, alias or extension); wins over filename and contentType. */
  declared?: string;
  /** The name the file was given (its extension declares a format); defaults to the path's. */
  filename?: string;
  /** A Content-Type header, used when neither of the above declares a known format. */
  contentType?: string;
}

/**
 * Identifies a file from its bytes and compares that with the format it was declared as.
 * Reads a bounded amount: a 64 KB head, plus the ZIP end record and central directory or
 * a few OLE2 sectors. Throws FILE_NOT_FOUND for a missing or unreadable file and
 * INVALID_REQUEST for an explicit declared format the registry does not know.
 */
export async function detect(file: string, options: DetectOptions = {}): Promise<DetectReport> {
  const explicit = options.declared === undefined ? undefined : resolveFormat(options.declared);
  if (options.declared !== undefined && !explicit) {
    throw new FileconvError('INVALID_REQUEST', `Unknown format "${options.declared}".`);
  }
  const declared =
    explicit ??
    formatFromFilename(options.filename ?? file) ??
    (options.contentType ? formatFromMime(options.contentType) : undefined);
  const finding = chosenByDeclared(await detectFile(file, undefined, declared?.id), declared);
  const detected = getFormat(finding.id) ?? getFormat('bin')!;
  return {
    declared: declared?.id ?? detected.id,
    detected: detected.id,
    match: declared ? sameFormat(declared, detected) : true,
    mime: detected.mime,
    confidence: finding.confidence,
    ...(finding.encrypted ? { encrypted: true as const } : {}),
    ...(finding.encoding
      ? {
          encoding: finding.encoding,
          encoding_source: finding.encodingSource ?? 'guessed',
          encoding_confidence: finding.encodingConfidence ?? 1,
        }
      : {}),
    ...(finding.version ? { version: finding.version } : {}),
  };
}

/**
 * Bytes that are one of several formats (an encrypted OOXML package is a DOCX, XLSX or PPTX
 * inside its encryption) are the declared one when it is among them, as sure as a container.
 */
function chosenByDeclared(finding: Finding, declared: FormatDef | undefined): Finding {
  if (!declared || !finding.oneOf?.includes(declared.id)) return finding;
  return { ...finding, id: declared.id, confidence: CONFIDENCE.CONTAINER };
}

/**
 * Declared and detected agree when their canonical ids do, after profiles (pdfa) fold into their
 * base, or when one is a dialect of the other (C++ in a `.h`, JavaScript in a `.ts`).
 */
function sameFormat(declared: FormatDef, detected: FormatDef): boolean {
  const [a, b] = [declared.detectsAs ?? declared.id, detected.detectsAs ?? detected.id];
  return a === b || kin(a, b);
}

/**
 * Detection of the bytes, `stats` receiving the bytes read. With `declared`, the name settles what
 * the bytes only guess at between text formats (text/named.ts); without it, the bytes alone.
 */
export async function detectFile(
  file: string,
  stats?: { bytesRead: number },
  declared?: FormatId,
): Promise<Finding> {
  let src: ByteSource;
  try {
    src = await ByteSource.open(file);
  } catch (cause) {
    throw new FileconvError('FILE_NOT_FOUND', `Cannot read ${file}.`, { cause });
  }
  try {
    const finding = inRegistry(await detectSource(src));
    if (!declared || declared === finding.id || !TEXT_FINDINGS.has(getFormat(finding.id)?.family ?? ''))
      return finding;
    const doc = decodeText(src.head, src.complete);
    return doc ? agreeWithName(declared, finding, doc) : finding;
  } finally {
    if (stats) stats.bytesRead = src.bytesRead;
    await src.close();
  }
}

/**
 * Detectors know some formats the registry does not list yet (no fixture can be written for them
 * here): those are known bytes of a foreign format, reported as bin like file-type's others.
 */
function inRegistry(finding: Finding): Finding {
  const oneOf = finding.oneOf?.filter((id) => getFormat(id) !== undefined);
  if (getFormat(finding.id)) return oneOf ? { ...finding, oneOf } : finding;
  return { id: 'bin', confidence: CONFIDENCE.FOREIGN };
}

/** Families of the findings a declared name may overrule: text guesses, never binary formats. */
const TEXT_FINDINGS = new Set(['text', 'code']);

async function detectSource(src: ByteSource): Promise<Finding> {
  if (src.size === 0) return { id: 'bin', confidence: CONFIDENCE.NOTHING };
  if (isZipSignature(src.head)) return inspectZip(src);
  if (isOleSignature(src.head)) return inspectOle(src);
  const looksLikeText = startsAsText(src.head);
  const signature =
    (await detectBinaryFormat(src, looksLikeText)) ??
    matchSignature(src.head) ??
    matchDocumentSignature(src.head) ??
    (await flacAfterId3(src)) ??
    (await mpegAudio(src, true)) ??
    matchMediaSignature(src.head);
  if (signature) return signature;
  if (looksLikeText) {
    const text = (await sniffPastBlankHead(src)) ?? subtitles(src) ?? sniffText(src.head, src.complete);
    if (text) return withEncoding(text, src);
  } else {
    const pdf = await pdfBehindJunk(src);
    if (pdf) return pdf;
  }
  const magic = await detectMagic(src, (id) => getFormat(id) !== undefined);
  if (magic?.id === 'mp4' && (await isAudioOnlyMp4(src))) return { ...magic, id: 'm4a' };
  if (magic && magic.id !== 'bin') return magic;
  const dbf = matchDbase(src.head);
  if (dbf) return dbf;
  const padded = await sniffPastNulPadding(src);
  if (padded) return padded;
  // Short signatures of formats outside the registry also match text (a UTF-16 BOM reads as an
  // MPEG frame sync; calendar and subtitle files are text): text that decodes cleanly wins.
  const text = sniffText(src.head, src.complete);
  if (text) return withEncoding(text, src);
  return magic ?? (await mpegAudio(src, false)) ?? { id: 'bin', confidence: CONFIDENCE.UNKNOWN };
}

function subtitles(src: ByteSource): Finding | undefined {
  const doc = decodeText(src.head, src.complete);
  return doc && sniffSubtitles(doc);
}

/**
 * A text finding with the encoding of its bytes. UTF-8 and UTF-16/32 by their marks are known from
 * decoding the head; anything else (Big5, Shift_JIS, windows-1251...) is told by the encoding
 * detector, loaded only then: most text is UTF-8 and detection's start-up stays small.
 */
async function withEncoding(finding: Finding, src: ByteSource): Promise<Finding> {
  const decoded = decodeText(src.head, src.complete)?.encoding;
  const head = src.head;
  const bom = [
    [0xef, 0xbb, 0xbf],
    [0xff, 0xfe],
    [0xfe, 0xff],
    [0, 0, 0xfe, 0xff],
  ].some((mark) => mark.every((b, k) => head[k] === b));
  if (
    decoded &&
    decoded !== 'latin1' &&
    (bom || decoded !== 'utf-8' || !declaredEncoding(head, finding.id))
  ) {
    const known = {
      encodingSource: bom ? 'bom' : 'guessed',
      encodingConfidence: bom || decoded === 'utf-8' ? 1 : 0.95,
    };
    return {
      ...finding,
      encoding: decoded,
      ...(known as Pick<Finding, 'encodingSource' | 'encodingConfidence'>),
    };
  }
  const { sourceEncoding, DETECT_SAMPLE_BYTES } = await import('./text/encoding.js');
  const found = sourceEncoding(head, finding.id, !src.complete, DETECT_SAMPLE_BYTES);
  return {
    ...finding,
    encoding: found.encoding.toLowerCase(),
    encodingSource: found.source === 'given' ? 'declared' : found.source,
    encodingConfidence: found.confidence,
  };
}

/** How far past a blank or zero-filled head detection looks for the first byte of content. */
const PADDING_SCAN_LIMIT = 1024 * 1024;

const BLANK_BYTES = new Set([0x20, 0x09, 0x0a, 0x0d, 0x0c]);
const PADDING_BYTES = new Set([0, ...BLANK_BYTES]);
/** A file that opens with this many NUL bytes is padded (a preallocated or carved file), not a format's header. */
const NUL_PADDING = 64;

/**
 * A head that is only whitespace (malformed pages open with long runs of blank lines) says
 * nothing: the text sniffers judge the bytes from the first non-blank one, within a bounded scan.
 */
function sniffPastBlankHead(src: ByteSource): Promise<Finding | undefined> {
  if (src.complete || !src.head.every((b) => BLANK_BYTES.has(b))) return Promise.resolve(undefined);
  return sniffPastPadding(src, BLANK_BYTES);
}

/**
 * Text behind a run of NUL bytes within the head (a page saved into a preallocated file, a file
 * carved from a disk image): no binary format opens with that much nothing, so the text after it
 * is judged. A head of nothing but zeros (a sparse or zeroed file) is not scanned further.
 */
function sniffPastNulPadding(src: ByteSource): Promise<Finding | undefined> {
  const head = src.head;
  if (head.length <= NUL_PADDING || !head.subarray(0, NUL_PADDING).every((b) => b === 0))
    return Promise.resolve(undefined);
  return sniffPastPadding(src, PADDING_BYTES, head.length);
}

/** The text finding of the bytes after the leading `padding` bytes, within `limit` bytes. */
async function sniffPastPadding(
  src: ByteSource,
  padding: Set<number>,
  limit = PADDING_SCAN_LIMIT,
): Promise<Finding | undefined> {
  for (let at = 0; at < Math.min(src.size, limit); at += HEAD_BYTES) {
    const chunk = at === 0 ? src.head : await src.read(at, HEAD_BYTES);
    const first = chunk.findIndex((b) => !padding.has(b));
    if (first < 0) continue;
    const rest = await src.read(at + first, HEAD_BYTES);
    return startsAsText(rest) ? sniffText(rest, at + first + rest.length >= src.size) : undefined;
  }
  return undefined;
}

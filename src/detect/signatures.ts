import type { ByteSource } from './source.js';
import { CONFIDENCE, type Finding } from './types.js';

type Signature = [test: (head: Buffer) => boolean, id: string | ((head: Buffer) => string)];

const at = (head: Buffer, offset: number, ascii: string) =>
  head.length >= offset + ascii.length && head.toString('latin1', offset, offset + ascii.length) === ascii;
const bytes = (head: Buffer, ...values: number[]) => values.every((v, i) => head[i] === v);

/**
 * The common signatures that settle a format on their own. They are checked in-house before
 * file-type because file-type looks deeper than detection needs for these (it walks PNG chunks,
 * inflates gzip streams), which would cost most of the detection time.
 */
const SIGNATURES: Signature[] = [
  [(h) => at(h, 0, '%PDF-'), 'pdf'],
  [
    (h) => at(h, 0, '%!PS-Adobe-'),
    (h) => (/^%!PS-Adobe-\d\.\d EPSF-/.test(h.toString('latin1', 0, 40)) ? 'eps' : 'ps'),
  ],
  [(h) => bytes(h, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'png'],
  [(h) => bytes(h, 0xff, 0xd8, 0xff), 'jpg'],
  [(h) => at(h, 0, 'GIF87a') || at(h, 0, 'GIF89a'), 'gif'],
  [(h) => bytes(h, 0x1f, 0x8b, 0x08), 'gz'],
  [(h) => bytes(h, 0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c), '7z'],
  // RIFX is the big-endian RIFF some tools (and old Macs) wrote.
  [(h) => (at(h, 0, 'RIFF') || at(h, 0, 'RIFX')) && at(h, 8, 'WAVE'), 'wav'],
  [(h) => at(h, 0, 'RIFF') && at(h, 8, 'AVI '), 'avi'],
  [(h) => at(h, 0, 'RIFF') && at(h, 8, 'WEBP'), 'webp'],
  [(h) => at(h, 0, '8BPS'), 'psd'],
  [(h) => at(h, 0, 'fLaC'), 'flac'],
  // Opus, Vorbis and Theora share the Ogg container; the first packet names the codec.
  [(h) => at(h, 0, 'OggS'), (h) => (at(h, 28, 'OpusHead') ? 'opus' : at(h, 29, 'theora') ? 'ogv' : 'ogg')],
  [(h) => at(h, 0, '{\\rtf'), 'rtf'],
  // An AVIF whose major brand is something else (a low-overhead `mini` file, a sequence) lists
  // avif or avis among its compatible brands; file-type goes by the major brand alone.
  [(h) => at(h, 4, 'ftyp') && ftypBrands(h).some((b) => b === 'avif' || b === 'avis'), 'avif'],
  [(h) => at(h, 257, 'ustar'), 'tar'],
];

/** The major and compatible brands of an ISO-BMFF `ftyp` box at the start of the file. */
function ftypBrands(head: Buffer): string[] {
  const size = Math.min(head.readUInt32BE(0), head.length, 256);
  const brands = [head.toString('latin1', 8, 12)];
  for (let at = 16; at + 4 <= size; at += 4) brands.push(head.toString('latin1', at, at + 4));
  return brands;
}

/**
 * How far into a file a PDF header may start on its own: readers skip leading bytes (a mail
 * header, junk). Acrobat, poppler and pdf.js look for it in the first 1024 bytes; qpdf and
 * poppler go on reading a file whose header is further in, recovering its objects.
 */
const PDF_HEADER_WINDOW = 1024;

export function matchSignature(head: Buffer): Finding | undefined {
  for (const [test, id] of SIGNATURES) {
    if (test(head)) return { id: typeof id === 'string' ? id : id(head), confidence: CONFIDENCE.SIGNATURE };
  }
  const pdf = head.subarray(0, PDF_HEADER_WINDOW + 8).indexOf('%PDF-');
  if (pdf > 0 && /^%PDF-\d\.\d/.test(head.toString('latin1', pdf, pdf + 8)))
    return { id: 'pdf', confidence: CONFIDENCE.CONTAINER };
  const dashless = dashlessPdfHeader(head);
  if (dashless) return dashless;
  // PostScript programs may open with a bare `%!` or `%!PS` instead of the DSC `%!PS-Adobe-` line.
  if (/^%!(PS)?\s/.test(head.toString('latin1', 0, 5)))
    return { id: 'ps', confidence: CONFIDENCE.STRONG_TEXT };
  return undefined;
}

/**
 * A header that lost its dash (`%PDF1.4`), which writers of broken PDFs emit and poppler and qpdf
 * still open by their objects: taken only when numbered objects follow within the head, so prose
 * that mentions "%PDF1.4" is not a PDF.
 */
function dashlessPdfHeader(head: Buffer): Finding | undefined {
  const window = head.toString('latin1', 0, PDF_HEADER_WINDOW + 8);
  const at = window.search(/%PDF\d\.\d/);
  if (at < 0 || !/\d+\s+\d+\s+obj\b/.test(head.toString('latin1', at, at + 16 * 1024))) return undefined;
  return { id: 'pdf', confidence: CONFIDENCE.TEXT };
}

/**
 * Whether the start of the head is plain text (no NULs or other control bytes), in which case
 * no binary signature can apply and the magic table is skipped.
 */
export function startsAsText(head: Buffer): boolean {
  const n = Math.min(head.length, 4096);
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) return false;
  }
  return n > 0;
}

/**
 * FLAC behind an ID3v2 tag (taggers add one though FLAC has its own comments): the tag's
 * syncsafe size says where the audio starts. file-type stops at the tag and says mp3.
 */
export async function flacAfterId3(src: ByteSource): Promise<Finding | undefined> {
  const h = src.head;
  if (h.length < 10 || !at(h, 0, 'ID3')) return undefined;
  const size = ((h[6]! & 0x7f) << 21) | ((h[7]! & 0x7f) << 14) | ((h[8]! & 0x7f) << 7) | (h[9]! & 0x7f);
  const start = 10 + size + (h[5]! & 0x10 ? 10 : 0);
  const magic = start + 4 <= h.length ? h.subarray(start, start + 4) : await src.read(start, 4);
  return magic.toString('latin1') === 'fLaC' ? { id: 'flac', confidence: CONFIDENCE.SIGNATURE } : undefined;
}

/**
 * A PDF whose header lies past the first 1024 bytes, behind binary bytes (a long binary comment,
 * a wrapper's header): the header within the head, numbered objects after it, and an end of file
 * marker in the tail must all be there, so a text that merely mentions `%PDF-` is not taken.
 */
export async function pdfBehindJunk(src: ByteSource): Promise<Finding | undefined> {
  const head = src.head;
  const at = head.indexOf('%PDF-', PDF_HEADER_WINDOW);
  if (at < 0 || !/^%PDF-\d\.\d/.test(head.toString('latin1', at, at + 8))) return undefined;
  if (!/\d+\s+\d+\s+obj\b/.test(head.toString('latin1', at, at + 16 * 1024))) return undefined;
  const tailAt = Math.max(at, src.size - 2048);
  const tail = (await src.read(tailAt, src.size - tailAt)).toString('latin1');
  return /%%EOF|startxref/.test(tail) ? { id: 'pdf', confidence: CONFIDENCE.TEXT } : undefined;
}

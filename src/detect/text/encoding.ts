import { isAscii, isUtf8 as isWholeUtf8 } from 'node:buffer';
import chardet from 'chardet';
import type { FormatId } from '../../formats/index.js';
import { declaredEncoding } from './charset-declared.js';
import { type Guess, guessAlphabet, guessMultibyte, mostlyUtf8 } from './charset-guess.js';
import { guessUtf16, guessWideUtf16 } from './decode.js';
import { decodeUtf32, guessUtf32 } from './utf32.js';

/** Valid UTF-8; `cut` allows a character cut off at the end (a head read from a larger file). */
function isUtf8(bytes: Uint8Array, cut = false): boolean {
  // Whole files can be large: node's validator reads them without building a string.
  if (!cut) return isWholeUtf8(bytes);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut });
    return true;
  } catch {
    return false;
  }
}

/**
 * The detector's confidence (0 to 100) under which its guess is not trusted, unless it is at least
 * 15 and twice the next guess's. Measured on short paragraphs made with iconv: Central European
 * single-byte text scores 30 to 40, Cyrillic and Greek 20 to 65 (a pangram's rare letters score
 * lowest, far ahead of the next guess), Chinese, Japanese and Korean 100.
 */
const MIN_CONFIDENCE = 25;
/** The detector reads this much of a file: enough for a stable guess, bounded for large files. */
const SAMPLE_BYTES = 256 * 1024;
/**
 * What detection's report gives the detector: its cost grows with the bytes (each of its
 * recognisers walks all of them), and on the corpus's legacy-encoded files 8 and 16 KB gave the
 * same guesses as the whole 64 KB head.
 */
export const DETECT_SAMPLE_BYTES = 16 * 1024;

/** An encoding name TextDecoder knows, canonical; undefined when it knows none by that name. */
function decoderName(name: string): string | undefined {
  try {
    return new TextDecoder(name).encoding;
  } catch {
    return undefined;
  }
}

/** The statistical detector's (chardet's) candidates that TextDecoder can read, by canonical name. */
function analysed(bytes: Uint8Array, sample: number): { name: string; confidence: number }[] {
  return chardet.analyse(bytes.subarray(0, sample)).flatMap((r) => {
    // Latin-1 is read as windows-1252, its superset (the HTML standard does the same).
    const name = r.name === 'ISO-8859-1' ? 'windows-1252' : decoderName(r.name);
    return name ? [{ name, confidence: r.confidence }] : [];
  });
}

/** What the statistical detector says, when it is sure enough. */
function detected(candidates: { name: string; confidence: number }[]): Guess | undefined {
  const [best, next] = candidates;
  if (!best) return undefined;
  const clear =
    best.confidence >= MIN_CONFIDENCE ||
    (best.confidence >= 15 && best.confidence >= 2 * (next?.confidence ?? 0));
  return clear ? { encoding: best.name, confidence: best.confidence / 100 } : undefined;
}

/** How the encoding was found: a byte order mark, the text's own declaration, a guess, or the caller's word. */
export type EncodingSource = 'bom' | 'declared' | 'guessed' | 'given';

/** An encoding, how it was found, how sure that is (0 to 1), and whether it is trusted at all. */
export interface SourceEncoding {
  encoding: string;
  source: EncodingSource;
  confidence: number;
  /** False for the last resort, windows-1252 read because nothing else could be told. */
  confident: boolean;
}

const UTF32_BOMS = {
  'UTF-32LE': [0xff, 0xfe, 0, 0],
  'UTF-32BE': [0, 0, 0xfe, 0xff],
} as const;

/** The UTF-32 encoding a byte order mark names, checked before UTF-16's (FF FE starts both). */
function utf32Bom(bytes: Uint8Array): 'UTF-32LE' | 'UTF-32BE' | undefined {
  for (const [name, bom] of Object.entries(UTF32_BOMS) as ['UTF-32LE' | 'UTF-32BE', readonly number[]][])
    if (bom.every((b, i) => bytes[i] === b)) return name;
  return undefined;
}

/** The encoding a byte order mark names. */
function bomEncoding(bytes: Uint8Array): string | undefined {
  const utf32 = utf32Bom(bytes);
  if (utf32) return utf32;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'UTF-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16LE';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'UTF-16BE';
  return undefined;
}

/** UTF-32 or UTF-16 without a byte order mark, told by where its zero bytes fall. */
function wideEncoding(bytes: Uint8Array): string | undefined {
  const utf32 = guessUtf32(bytes);
  if (utf32) return utf32;
  const utf16 = guessUtf16(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (utf16) return utf16 === 'utf-16le' ? 'UTF-16LE' : 'UTF-16BE';
  return guessWideUtf16(bytes);
}

/**
 * The encoding a text input is written in, and how that was found. Engines read UTF-8 (or are
 * told a charset), so every text input is decoded once, by these sources in order:
 * 1. a byte order mark (UTF-32, UTF-8, UTF-16);
 * 2. UTF-32 and UTF-16 without one, by their zero bytes, which no other encoding writes in text;
 * 3. valid UTF-8 (a page labelled Latin-1 but saved as UTF-8 is common, Latin-1 text that forms
 *    valid UTF-8 sequences is not); ASCII alone takes what a declaration names;
 * 4. the text's declaration, anywhere the format allows one (charset-declared.ts);
 * 5. UTF-8 with a few invalid bytes, each read as U+FFFD rather than the whole file in another
 *    encoding;
 * 6. a guess: multi-byte encodings whose strict reading is everyday text and Cyrillic and Greek code
 *    pages whose reading is words of that alphabet (charset-guess.ts, sure on a few words), then the
 *    statistical detector (Big5, GB18030, Shift_JIS, EUC-JP, EUC-KR, the windows and ISO-8859
 *    pages, KOI8-R), which needs hundreds of bytes;
 * 7. windows-1252, the HTML standard's default, which is not a confident reading.
 * `cut` says the bytes are a head of a larger file; `sample` bounds what the detector reads.
 */
export function sourceEncoding(
  bytes: Uint8Array,
  format: FormatId,
  cut = false,
  sample = SAMPLE_BYTES,
): SourceEncoding {
  const found = (encoding: string, source: EncodingSource, confidence = 1) => ({
    encoding,
    source,
    confidence: Math.round(confidence * 100) / 100,
    confident: true,
  });
  const bom = bomEncoding(bytes);
  if (bom) return found(bom, 'bom');
  const wide = bytes.includes(0) ? wideEncoding(bytes) : undefined;
  if (wide) return found(wide, 'guessed', 0.95);
  const declared = declaredEncoding(bytes, format);
  if (isUtf8(bytes, cut)) {
    if (declared && isAscii(bytes)) return found(declared, 'declared');
    return found('UTF-8', declared === 'utf-8' ? 'declared' : 'guessed');
  }
  if (declared) return found(declared, 'declared');
  const utf8Share = mostlyUtf8(bytes.subarray(0, sample));
  if (utf8Share) return found('UTF-8', 'guessed', utf8Share);
  const head = bytes.subarray(0, sample);
  const candidates = analysed(head, sample);
  const rank = (name: string) => candidates.find((c) => c.name === name)?.confidence ?? 0;
  const guess =
    guessMultibyte(head, cut || head.length < bytes.length, rank)[0] ??
    guessAlphabet(head) ??
    detected(candidates);
  if (guess) return found(decoderName(guess.encoding) ?? guess.encoding, 'guessed', guess.confidence);
  return { encoding: 'windows-1252', source: 'guessed', confidence: 0, confident: false };
}

/**
 * The input as text without a byte order mark, with the encoding it was read as and how that was
 * found (a converter says so in the timeline). `given` (the `encoding` option) overrides detection.
 */
export function decodeSource(
  bytes: Uint8Array,
  format: FormatId,
  given?: string,
): SourceEncoding & { text: string } {
  const found = encodingOf(bytes, format, given);
  return { ...found, text: decodeFound(bytes, found) };
}

/** How `bytes` are to be read: `given` (the `encoding` option) over detection. */
export function encodingOf(bytes: Uint8Array, format: FormatId, given?: string): SourceEncoding {
  return given
    ? { encoding: given, source: 'given', confidence: 1, confident: true }
    : sourceEncoding(bytes, format);
}

/** The bytes as text in the encoding found, without a byte order mark. */
export function decodeFound(bytes: Uint8Array, { encoding }: Pick<SourceEncoding, 'encoding'>): string {
  if (encoding === 'UTF-32LE' || encoding === 'UTF-32BE') {
    const body = utf32Bom(bytes) ? bytes.subarray(4) : bytes;
    return decodeUtf32(body, encoding === 'UTF-32LE');
  }
  return decodeAs(bytes, encoding);
}

/**
 * windows-1252's characters at 0x80 to 0x9F (curly quotes, dashes, the euro sign...), which
 * Node 20's TextDecoder reads as ISO-8859-1's control characters under every label that names
 * windows-1252 (the HTML standard's reading of "iso-8859-1", "latin1" and "windows-1252").
 */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** Bytes decoded as `encoding` (a BOM of its own encoding dropped), windows-1252 read right. */
export function decodeAs(bytes: Uint8Array, encoding: string): string {
  const decoder = new TextDecoder(encoding);
  const text = decoder.decode(bytes);
  if (decoder.encoding !== 'windows-1252') return text;
  return text.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/** The timeline's line for a source read in another encoding than UTF-8, saying how it was found. */
export function encodingNote(
  found: Pick<SourceEncoding, 'encoding' | 'source' | 'confidence' | 'confident'>,
): string {
  if (!found.confident)
    return `the text's encoding could not be told with confidence (no byte order mark or declaration, not UTF-8, no clear match); read as ${found.encoding}, so letters outside ASCII may be wrong`;
  return `read as ${found.encoding} (${HOW[found.source]}${found.source === 'guessed' ? `, confidence ${found.confidence}` : ''})`;
}

const HOW: Record<EncodingSource, string> = {
  bom: 'by its byte order mark',
  declared: 'as its declaration says',
  guessed: 'guessed from its bytes',
  given: 'as the encoding option says',
};

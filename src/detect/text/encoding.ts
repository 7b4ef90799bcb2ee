import chardet from 'chardet';
import htmlEncodingSniffer from 'html-encoding-sniffer';
import type { FormatId } from '../../formats/index.js';
import { guessUtf16 } from './decode.js';
import { decodeUtf32, guessUtf32 } from './utf32.js';

/** Valid UTF-8; `cut` allows a character cut off at the end (a head read from a larger file). */
function isUtf8(bytes: Uint8Array, cut = false): boolean {
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

/** Code points of everyday text: ASCII, Latin to Cyrillic, CJK punctuation, kana, ideographs, Hangul, full-width forms. */
const EVERYDAY =
  /[\t\n\r\u0020-\u007e\u00a0-\u04ff\u2000-\u206f\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uff00-\uffef]/gu;

/**
 * UTF-16 without a byte order mark whose text is mostly not ASCII (Chinese, Japanese): it has
 * zero bytes (a line break, a space, a digit), which no legacy encoding writes in text, and read
 * in the right byte order nearly all of it is everyday text; where both orders read so, the side
 * its zero bytes fall on decides.
 */
function guessWideUtf16(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | undefined {
  const n = Math.min(bytes.length, 64 * 1024) & ~1;
  if (n < 2 || !bytes.subarray(0, n).includes(0)) return undefined;
  const share = (encoding: string) => {
    const text = new TextDecoder(encoding).decode(bytes.subarray(0, n));
    return (text.match(EVERYDAY)?.length ?? 0) / text.length;
  };
  const le = share('utf-16le') >= 0.95;
  const be = share('utf-16be') >= 0.95;
  if (le !== be) return le ? 'UTF-16LE' : 'UTF-16BE';
  if (!le) return undefined;
  // Kana read in the wrong order are ideographs: then ASCII decides, whose zero is the high byte.
  let high = 0;
  for (let i = 0; i < n; i++) if (bytes[i] === 0) high += i % 2 ? 1 : -1;
  return high > 0 ? 'UTF-16LE' : high < 0 ? 'UTF-16BE' : undefined;
}

/** An encoding name TextDecoder knows, canonical; undefined when it knows none by that name. */
function decoderName(name: string): string | undefined {
  try {
    return new TextDecoder(name).encoding;
  } catch {
    return undefined;
  }
}

/** What the statistical detector (chardet) says, when it is sure enough and TextDecoder can read it. */
function detected(bytes: Uint8Array, sample: number): string | undefined {
  const [best, next] = chardet.analyse(bytes.subarray(0, sample));
  if (!best) return undefined;
  const clear =
    best.confidence >= MIN_CONFIDENCE ||
    (best.confidence >= 15 && best.confidence >= 2 * (next?.confidence ?? 0));
  if (!clear) return undefined;
  // Latin-1 is read as windows-1252, its superset (the HTML standard does the same).
  if (best.name === 'ISO-8859-1') return 'windows-1252';
  return decoderName(best.name) === undefined ? undefined : best.name;
}

/** An encoding and whether it was told with confidence (a mark, a declaration or a sure guess). */
export interface SourceEncoding {
  encoding: string;
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

/**
 * The encoding a text input is written in. pandoc and LibreOffice's text import read UTF-8, and
 * give empty or garbled output for anything else. A byte order mark decides (UTF-32, UTF-16,
 * UTF-8); then UTF-32 and UTF-16 without one, by their zero bytes; then bytes that are valid
 * UTF-8 are UTF-8 (a page labelled Latin-1 but saved as UTF-8 is common, while Latin-1 text that
 * happens to form valid UTF-8 sequences is not); then a declaration (an HTML page's
 * `<meta charset>` by the HTML standard's prescan, an XML prolog's encoding); then a statistical
 * detector (Big5, GB18030, Shift_JIS, EUC-JP, EUC-KR, the windows and ISO-8859 code pages,
 * KOI8-R); then windows-1252, the HTML standard's default, which is not a confident reading.
 * `cut` says the bytes are a head of a larger file; `sample` bounds what the detector reads.
 */
export function sourceEncoding(
  bytes: Uint8Array,
  format: FormatId,
  cut = false,
  sample = SAMPLE_BYTES,
): SourceEncoding {
  const sure = (encoding: string) => ({ encoding, confident: true });
  const wide = utf32Bom(bytes) ?? guessUtf32(bytes);
  if (wide) return sure(wide);
  const bom = htmlEncodingSniffer(bytes, { xml: true, defaultEncoding: '' });
  if (bom) return sure(bom);
  const utf16 = guessUtf16(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (utf16) return sure(utf16 === 'utf-16le' ? 'UTF-16LE' : 'UTF-16BE');
  if (isUtf8(bytes, cut)) return sure('UTF-8');
  const wideUtf16 = guessWideUtf16(bytes);
  if (wideUtf16) return sure(wideUtf16);
  const declared = htmlEncodingSniffer(bytes, { xml: format !== 'html', defaultEncoding: '' });
  if (declared) return sure(declared);
  const guess = detected(bytes, sample);
  return guess ? sure(guess) : { encoding: 'windows-1252', confident: false };
}

/**
 * The input as text without a byte order mark, the encoding it was read as, and whether that
 * encoding was told with confidence (a converter says so in the timeline when not).
 */
export function decodeSource(
  bytes: Uint8Array,
  format: FormatId,
): { text: string; encoding: string; confident: boolean } {
  const { encoding, confident } = sourceEncoding(bytes, format);
  if (encoding === 'UTF-32LE' || encoding === 'UTF-32BE') {
    const body = utf32Bom(bytes) ? bytes.subarray(4) : bytes;
    return { text: decodeUtf32(body, encoding === 'UTF-32LE'), encoding, confident };
  }
  return { text: decodeAs(bytes, encoding), encoding, confident };
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

/** The timeline's line for a source read in another encoding than UTF-8. */
export function encodingNote(encoding: string, confident: boolean): string {
  return confident
    ? `read as ${encoding}`
    : `the text's encoding could not be told with confidence (no byte order mark or declaration, not UTF-8, no clear match); read as ${encoding}, so letters outside ASCII may be wrong`;
}

import { isUtf8 } from 'node:buffer';
import { decodeUtf32, guessUtf32 } from './utf32.js';

/** Text decoded from the head of a file, or undefined when the bytes are not text. */
export interface DecodedText {
  text: string;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be' | 'latin1';
  /** True when the text is the whole file, so parsers can take all of it. */
  complete: boolean;
}

/** Share of control characters (other than tab, newlines, form feed, escape) that still passes as text. */
const MAX_CONTROL_SHARE = 0.02;

/**
 * Decodes a head buffer as text: a BOM names UTF-8, UTF-16 or UTF-32; UTF-32 and UTF-16
 * without a BOM are recognised by their zero bytes; otherwise UTF-8, or Latin-1 when the bytes are not valid
 * UTF-8. Bytes with NULs or many control characters are not text.
 */
export function decodeText(head: Buffer, complete: boolean): DecodedText | undefined {
  // Detection asks several times about the same head (the sniffers, the encoding, the name's say).
  const known = decoded.get(head);
  if (known && known.complete === complete) return known.doc;
  const doc = decodeHead(head, complete);
  decoded.set(head, { complete, doc });
  return doc;
}

const decoded = new WeakMap<Buffer, { complete: boolean; doc: DecodedText | undefined }>();

function decodeHead(head: Buffer, complete: boolean): DecodedText | undefined {
  if (head.length === 0) return undefined;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return utf8(head.subarray(3), complete);
  if (head.subarray(0, 4).equals(UTF32LE_BOM)) return utf32(head.subarray(4), 'utf-32le', complete);
  if (head.subarray(0, 4).equals(UTF32BE_BOM)) return utf32(head.subarray(4), 'utf-32be', complete);
  if (head[0] === 0xff && head[1] === 0xfe && !(head[2] === 0 && head[3] === 0))
    return utf16(head.subarray(2), 'utf-16le', complete);
  if (head[0] === 0xfe && head[1] === 0xff) return utf16(head.subarray(2), 'utf-16be', complete);
  // UTF-32 before UTF-16: ASCII in UTF-32 also has every other byte zero.
  const wide = guessUtf32(head);
  if (wide) return utf32(head, wide === 'UTF-32LE' ? 'utf-32le' : 'utf-32be', complete);
  const bomless = guessUtf16(head);
  if (bomless) return utf16(head, bomless, complete);
  const wide16 = head.includes(0) ? guessWideUtf16(head) : undefined;
  if (wide16) return utf16(head, wide16 === 'UTF-16LE' ? 'utf-16le' : 'utf-16be', complete);
  return utf8(head, complete);
}

function utf8(bytes: Buffer, complete: boolean): DecodedText | undefined {
  if (bytes.includes(0)) return undefined;
  // A head cut in the middle of a multi-byte character is still valid UTF-8 up to the cut.
  const body = complete ? bytes : bytes.subarray(0, lastCharBoundary(bytes));
  // Validating first (simdutf in node) is several times cheaper than a fatal TextDecoder, which
  // also set up a converter per call.
  const valid = isUtf8(body);
  const text = valid ? withoutBom(body.toString('utf8')) : body.toString('latin1');
  const encoding: DecodedText['encoding'] = valid ? 'utf-8' : 'latin1';
  return looksLikeText(text) ? { text, encoding, complete } : undefined;
}

/** TextDecoder, which this replaces, drops a BOM at the start (a second one after the first). */
const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

function utf16(bytes: Buffer, encoding: 'utf-16le' | 'utf-16be', complete: boolean): DecodedText | undefined {
  const even = bytes.subarray(0, bytes.length - (bytes.length % 2));
  const le = encoding === 'utf-16le' ? even : Buffer.from(even).swap16();
  const text = le.toString('utf16le');
  if (text.includes('\0')) return undefined;
  return looksLikeText(text) ? { text, encoding, complete } : undefined;
}

const UTF32LE_BOM = Buffer.from([0xff, 0xfe, 0, 0]);
const UTF32BE_BOM = Buffer.from([0, 0, 0xfe, 0xff]);

/** UTF-32 (rare, but it has a BOM); a NUL or a code point outside Unicode means not text. */
function utf32(bytes: Buffer, encoding: 'utf-32le' | 'utf-32be', complete: boolean): DecodedText | undefined {
  const text = decodeUtf32(bytes, encoding === 'utf-32le');
  if (/[\0\ufffd]/.test(text)) return undefined;
  return looksLikeText(text) ? { text, encoding, complete } : undefined;
}

/** UTF-16 text without a BOM: mostly-ASCII text leaves every other byte zero. */
export function guessUtf16(head: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(head.length, 1024) & ~1;
  if (n < 4) return undefined;
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) zeroEven++;
    if (head[i + 1] === 0) zeroOdd++;
  }
  const pairs = n / 2;
  if (zeroOdd > pairs * 0.6 && zeroEven < pairs * 0.05) return 'utf-16le';
  if (zeroEven > pairs * 0.6 && zeroOdd < pairs * 0.05) return 'utf-16be';
  return undefined;
}

function lastCharBoundary(bytes: Buffer): number {
  let end = bytes.length;
  // Step back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  let i = end - 1;
  while (i >= 0 && end - i <= 4 && (bytes[i]! & 0xc0) === 0x80) i--;
  if (i >= 0) {
    const lead = bytes[i]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - i < need) end = i;
  }
  return end;
}

/** The characters looksLikeText counts; most texts have none, which one search settles. */
const CONTROL = /[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f\ufffd]/;

function looksLikeText(text: string): boolean {
  if (text.length === 0) return false;
  if (!CONTROL.test(text)) return true;
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 27) || c === 0x7f || c === 0xfffd)
      control++;
  }
  return control <= text.length * MAX_CONTROL_SHARE;
}

/** Code points of everyday text: ASCII, Latin to Cyrillic, CJK punctuation, kana, ideographs, Hangul, full-width forms. */
const EVERYDAY =
  /[\t\n\r\u0020-\u007e\u00a0-\u04ff\u2000-\u206f\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uff00-\uffef]/gu;

/**
 * UTF-16 without a byte order mark whose text is mostly not ASCII (Chinese, Japanese): it has
 * zero bytes (a line break, a space, a digit), which no legacy encoding writes in text, and read
 * in the right byte order nearly all of it is everyday text; where both orders read so, the side
 * its zero bytes fall on decides.
 */
export function guessWideUtf16(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | undefined {
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

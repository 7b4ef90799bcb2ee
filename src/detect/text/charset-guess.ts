/**
 * Guesses for short legacy text, where a statistical detector has too few bytes to count (an
 * 80-byte CSV of names and cities). Two measures that need only a handful of characters:
 *
 * - A multi-byte encoding whose strict decoding succeeds, and whose two-byte characters fall in
 *   the rows its own standard keeps for everyday text (JIS X 0208 level 1 and kana, GB 2312
 *   level 1, Big5's frequent characters, KS X 1001's Hangul, the punctuation rows). Any bytes
 *   decode as windows-1252 and most decode as GB18030, but the wrong multi-byte reading lands in
 *   the rare-character rows (SJIS bytes as GBK's extension, Cyrillic bytes as GB 2312 level 2).
 * - A Cyrillic or Greek code page whose reading gives words wholly of that alphabet, cased as words are
 *   (lower, Capitalised or upper) and made of the language's frequent letters; the same bytes in
 *   the other Cyrillic pages invert the case (KOI8-R) or shift the letters (ISO-8859-5).
 */

export interface Guess {
  encoding: string;
  /** 0 to 1. */
  confidence: number;
}

type Range = readonly [from: number, to: number];

/** Everyday rows per encoding, as two-byte codes (lead << 8 | trail). */
const EVERYDAY_ROWS: Record<string, readonly Range[]> = {
  shift_jis: [
    [0x8140, 0x81ac],
    [0x824f, 0x82f1],
    [0x8340, 0x8396],
    [0x889f, 0x9872],
  ],
  'euc-jp': [
    [0xa1a1, 0xa1fe],
    [0xa3b0, 0xa3fa],
    [0xa4a1, 0xa4f3],
    [0xa5a1, 0xa5f6],
    [0xb0a1, 0xcfd3],
  ],
  'euc-kr': [
    [0xa1a1, 0xa1fe],
    [0xa3a1, 0xa3fe],
    [0xb0a1, 0xc8fe],
  ],
  gb18030: [
    [0xa1a1, 0xa1fe],
    [0xa3a1, 0xa3fe],
    [0xb0a1, 0xd7f9],
  ],
  big5: [
    [0xa140, 0xa3bf],
    [0xa440, 0xc67e],
  ],
};

const MULTIBYTE = Object.keys(EVERYDAY_ROWS);

/** Single bytes that stand alone in a multi-byte encoding (Shift_JIS's half-width katakana). */
const singleByte = (encoding: string, b: number) =>
  b < 0x80 || (encoding === 'shift_jis' && b >= 0xa1 && b <= 0xdf);

function strictlyDecodes(bytes: Uint8Array, encoding: string, cut: boolean): boolean {
  try {
    new TextDecoder(encoding, { fatal: true }).decode(bytes, { stream: cut });
    return true;
  } catch {
    return false;
  }
}

/** Two-byte characters in all, and those in the encoding's everyday rows. */
function everydayShare(bytes: Uint8Array, encoding: string): { pairs: number; everyday: number } {
  const rows = EVERYDAY_ROWS[encoding]!;
  let pairs = 0;
  let everyday = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (singleByte(encoding, b)) continue;
    // GB18030's four-byte sequences (a digit as second byte) are rare characters.
    const code = (b << 8) | (bytes[i + 1] ?? 0);
    const four = encoding === 'gb18030' && (bytes[i + 1] ?? 0) >= 0x30 && (bytes[i + 1] ?? 0) <= 0x39;
    i += four ? 3 : 1;
    pairs++;
    if (!four && rows.some(([from, to]) => code >= from && code <= to)) everyday++;
  }
  return { pairs, everyday };
}

/** Fewer two-byte characters than this say too little. */
const MIN_PAIRS = 2;
/** A reading with less than this share in everyday rows is not taken. */
const MIN_EVERYDAY = 0.9;

/**
 * The multi-byte encodings whose strict readings are everyday text, best first; `rank` orders
 * readings alike in share (the statistical detector's view, when it has one).
 */
export function guessMultibyte(bytes: Uint8Array, cut: boolean, rank: (encoding: string) => number): Guess[] {
  const found: Guess[] = [];
  for (const encoding of MULTIBYTE) {
    const { pairs, everyday } = everydayShare(bytes, encoding);
    if (pairs < MIN_PAIRS || everyday / pairs < MIN_EVERYDAY) continue;
    if (!strictlyDecodes(bytes, encoding, cut)) continue;
    found.push({ encoding, confidence: everyday / pairs });
  }
  return found.sort((a, b) => b.confidence - a.confidence || rank(b.encoding) - rank(a.encoding));
}

/** An alphabet's code pages, its letters as words are cased, and its most frequent letters. */
interface Alphabet {
  pages: readonly string[];
  /** Characters of the alphabet's block; anything else outside ASCII counts against a page. */
  block: RegExp;
  word: RegExp;
  /** The letters of about three in four letters of running text. */
  frequent: ReadonlySet<string>;
}

const ALPHABETS: Alphabet[] = [
  {
    pages: ['windows-1251', 'koi8-r', 'iso-8859-5', 'ibm866'],
    block: /[^\p{ASCII}\u0400-\u045f\u0490\u0491\u00ab\u00bb\u2013\u2014\u2116]/gu,
    word: /^(?:\p{Lu}?[\u0430-\u045f\u0491]+|[\u0400-\u042f\u0490]+|\p{Lu})$/u,
    // Russian's, Ukrainian's and Bulgarian's.
    frequent: new Set('оеаинтсрвлкмдпуяыьгзбіїєъ'),
  },
  {
    pages: ['iso-8859-7', 'windows-1253'],
    block: /[^\p{ASCII}\u0384-\u03ce\u00ab\u00bb\u2013\u2014]/gu,
    word: /^(?:\p{Lu}?[\u03ac-\u03ce]+|[\u0386-\u03ab]+|\p{Lu})$/u,
    frequent: new Set('αοειτνσςυρπκμληδάέίόή'),
  },
];

const WORD = /\p{L}+/gu;
/** Fewer letters outside ASCII than this say too little. */
const MIN_LETTERS = 6;

/**
 * The Cyrillic or Greek code page whose reading makes the most sense: its words that are not
 * ASCII are nearly all words of the alphabet, cased as words are, of its frequent letters.
 * Undefined for other text.
 */
export function guessAlphabet(bytes: Uint8Array): Guess | undefined {
  let best: Guess | undefined;
  for (const { pages, block, word, frequent } of ALPHABETS) {
    for (const encoding of pages) {
      const text = new TextDecoder(encoding).decode(bytes);
      // Signs and box drawing where letters should be: not this page.
      const foreign = text.match(block)?.length ?? 0;
      const words = (text.match(WORD) ?? []).filter((w) => /[^\p{ASCII}]/u.test(w));
      const cased = words.filter((w) => word.test(w));
      const letters = [...cased.join('').toLowerCase()];
      if (letters.length < MIN_LETTERS || foreign > letters.length / 10) continue;
      const share =
        (letters.filter((c) => frequent.has(c)).length / letters.length) * (cased.length / words.length);
      if (cased.length / words.length >= 0.8 && (!best || share > best.confidence))
        best = { encoding, confidence: share };
    }
  }
  return best && best.confidence >= 0.45 ? best : undefined;
}

/**
 * Bytes that are UTF-8 but for a few invalid ones (a file pasted together, one stray Latin-1
 * byte): its valid multi-byte characters far outnumber its invalid sequences, which legacy text
 * read as UTF-8 never gives. The share of characters that are valid, or undefined.
 */
export function mostlyUtf8(bytes: Uint8Array): number | undefined {
  const text = new TextDecoder('utf-8').decode(bytes);
  let valid = 0;
  let invalid = 0;
  for (const c of text) {
    if (c === '\ufffd') invalid++;
    else if (c.charCodeAt(0) >= 0x80) valid++;
  }
  if (invalid === 0 || valid < 4 || valid < 8 * invalid) return undefined;
  return valid / (valid + invalid);
}

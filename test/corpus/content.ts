import { readFile } from 'node:fs/promises';
import { execa } from 'execa';
import { carriesWords, textOf, textOfBytes, wordCounts, wordsKept } from '../../src/fidelity/text.js';
import { readZip } from '../../src/fidelity/zip.js';
import { getFormat } from '../../src/formats/index.js';
import { withTools } from '../../src/run/measure-tools.js';

export interface CaseContext {
  /** The corpus file. */
  source: string;
  from: string;
  to: string;
  /** The conversion's outputs in order (one per page for page images). */
  outputs: string[];
  options?: Record<string, unknown>;
}

export interface ContentVerdict {
  check: 'words' | 'mojibake' | 'pictures' | 'structure' | 'identifiers';
  ok: boolean;
  /** Why it failed, or what was compared. */
  why?: string;
  /** Set when the check is waived for the case, with the reason. */
  exempt?: string;
}

/** Recall of the source's words an output must reach, the same for every family and source. */
export const WORDS_RECALL = 0.9;
/** Source words under which a PDF counts as a scan (its text is what OCR reads, not what it holds). */
const SCAN_WORDS = 20;
const MAX_TEXT_BYTES = 16 * 1024 * 1024;

export const family = (f: string) => getFormat(f)?.family;
/** Files of text whose bytes are decoded here, independently of this project's decoder. */
const PLAIN = new Set('txt md csv tsv json yaml toml srt vtt rst tex xml html'.split(' '));
const MEDIA_TARGET = new Set(['image', 'audio', 'video']);

export async function tool(cmd: string, args: string[]): Promise<string | undefined> {
  const r = await execa(cmd, args, { reject: false, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return r.exitCode === 0 ? r.stdout : undefined;
}

/** uchardet's names that WHATWG's TextDecoder spells otherwise. */
const DECODER_LABEL: Record<string, string> = {
  ASCII: 'utf-8',
  UHC: 'euc-kr',
  'MAC-CYRILLIC': 'x-mac-cyrillic',
};

/** A declared charset: an XML prolog's encoding or an HTML meta charset, in the first 1 KB. */
function declaredCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 1024).toString('latin1');
  return (
    /<\?xml[^>]*encoding=["']([\w.:-]+)["']/i.exec(head)?.[1] ??
    /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(head)?.[1]
  );
}

function decodeAs(bytes: Buffer, label: string): string | undefined {
  try {
    return new TextDecoder(DECODER_LABEL[label.toUpperCase()] ?? label).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A text file decoded without this project's decoder: its byte order mark, valid UTF-8, its
 * declaration, else what uchardet says. Undefined when none of them can tell.
 */
export async function decodeIndependently(path: string): Promise<string | undefined> {
  const bytes = (await readFile(path)).subarray(0, MAX_TEXT_BYTES);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decodeAs(bytes, 'utf-8');
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    const guess = (await tool('uchardet', [path]))?.trim();
    // UTF-32 LE starts FF FE 00 00; TextDecoder has no UTF-32, so it is read here by hand.
    if (guess?.startsWith('UTF-32') || (bytes[2] === 0 && bytes[3] === 0 && bytes[0] === 0xff)) {
      const le = bytes[0] === 0xff;
      let s = '';
      for (let i = 4; i + 3 < bytes.length; i += 4)
        s += String.fromCodePoint(le ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i));
      return s;
    }
    return decodeAs(bytes, bytes[0] === 0xff ? 'utf-16le' : 'utf-16be');
  }
  const utf8 = (() => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return undefined;
    }
  })();
  if (utf8 !== undefined) return utf8;
  const declared = declaredCharset(bytes);
  const named = declared && decodeAs(bytes, declared);
  if (named) return named;
  const guess = (await tool('uchardet', [path]))?.trim();
  return guess && guess !== 'unknown' ? decodeAs(bytes, guess) : undefined;
}

/** The text a file shows, read independently; undefined when its format's text is not read here. */
export async function shownText(path: string, format: string): Promise<string | undefined> {
  if (PLAIN.has(format)) {
    const text = await decodeIndependently(path);
    if (text === undefined) return undefined;
    // Decoded here; the shown text of markup (not its head, comments or hidden parts) is then
    // read from the UTF-8 bytes as the fidelity measure reads it.
    if (format === 'md' || format === 'html' || format === 'xml')
      return textOfBytes(Buffer.from(text, 'utf8'), format);
    return text;
  }
  return withTools(undefined, (run) => textOf(path, format as never, run)).catch(() => undefined);
}

const SCRIPTS = [
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Cyrillic',
  'Greek',
  'Arabic',
  'Hebrew',
  'Thai',
  'Latin',
];
const SCRIPT_RE = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'gu')] as const);

/** Letters per script, as shares of all letters counted. */
function scriptShares(text: string): Map<string, number> {
  const counts = SCRIPT_RE.map(([s, re]) => [s, text.match(re)?.length ?? 0] as const);
  const total = counts.reduce((n, [, c]) => n + c, 0);
  return new Map(total ? counts.map(([s, c]) => [s, c / total]) : []);
}

/**
 * UTF-8 read as Latin-1 or windows-1252: a lead byte shown as Â..ï followed by a continuation byte
 * shown as a Latin-1 symbol or one of windows-1252's punctuation marks ("Ã©", "â€™", "è¿™").
 */
const UTF8_AS_LATIN1 =
  /[\u00c2-\u00ef][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u203a\u20ac\u2122]/g;
/** A run of Latin-1 letters and symbols: a two-byte encoding (Big5, GBK, Shift_JIS) read as Latin-1. */
const LATIN1_RUN = /[\u00a1-\u00ff]{4,}/g;

const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;

export function mojibakeOf(source: string, output: string): string | undefined {
  if (output.includes('\ufffd') && !source.includes('\ufffd'))
    return 'U+FFFD replacement characters in the output';
  const garbled = count(output, UTF8_AS_LATIN1) - count(source, UTF8_AS_LATIN1);
  if (garbled >= 3) return `${garbled} UTF-8 sequences shown as Latin-1 ("Ã©")`;
  const runs = count(output, LATIN1_RUN) - count(source, LATIN1_RUN);
  if (runs >= 3) return `${runs} runs of Latin-1 letters the source does not have`;
  const src = scriptShares(source);
  const out = scriptShares(output);
  for (const [script, share] of src) {
    if (script === 'Latin' || share < 0.2) continue;
    const got = out.get(script) ?? 0;
    if (got < share / 3)
      return `source is ${Math.round(share * 100)}% ${script}, output ${Math.round(got * 100)}%`;
  }
  return undefined;
}

const SHEETS = new Set(['xlsx', 'ods']);

/** Worksheets of an XLSX or ODS workbook. */
async function sheetCount(path: string): Promise<number> {
  const { texts } = await readZip(path, (n) => n === 'xl/workbook.xml' || n === 'content.xml');
  const book = texts.get('xl/workbook.xml') ?? texts.get('content.xml') ?? '';
  return count(book, /<(sheet|table:table)[\s>]/g);
}

/** Words kept and no mojibake: both read the two texts, so they are taken together. */
export async function textChecks(c: CaseContext): Promise<ContentVerdict[]> {
  const output = c.outputs[0]!;
  if (MEDIA_TARGET.has(family(c.to) ?? '')) {
    if (carriesWords(c.from as never))
      return [{ check: 'words', ok: true, exempt: `a ${c.to} target holds pictures, not text` }];
    return [];
  }
  const readable = PLAIN.has(c.from) || carriesWords(c.from as never);
  if (!readable) return [];
  const [source, out] = await Promise.all([shownText(c.source, c.from), shownText(output, c.to)]);
  if (source === undefined || out === undefined) return [];
  const verdicts: ContentVerdict[] = [];
  const why = mojibakeOf(source, out);
  if (/\p{L}/u.test(source)) verdicts.push({ check: 'mojibake', ok: why === undefined, why });
  // Data and markup sources (JSON, YAML, XML, reST, TeX) carry keys and markup a document shows
  // differently; their script is judged, not their word recall.
  if (!carriesWords(c.from as never) || !carriesWords(c.to as never) || c.options?.pages) return verdicts;
  if (SHEETS.has(c.from) && c.to === 'csv' && (await sheetCount(c.source)) > 1)
    return [...verdicts, { check: 'words', ok: true, exempt: 'a CSV holds the first sheet of several' }];
  const sourceWords = wordCounts(source);
  // A spreadsheet stores numbers and shows them through formats (a date is 42729 in the file):
  // its words are judged, its numbers are not.
  if (SHEETS.has(c.from)) for (const w of sourceWords.keys()) if (/^[\d.]+$/.test(w)) sourceWords.delete(w);
  const total = [...sourceWords.values()].reduce((a, b) => a + b, 0);
  if (c.from === 'pdf' && total < SCAN_WORDS)
    return [
      ...verdicts,
      {
        check: 'words',
        ok: true,
        exempt: 'a PDF without a text layer (scanned or drawn): its words are what OCR reads',
      },
    ];
  const recall = wordsKept(sourceWords, wordCounts(out));
  if (recall === undefined) return verdicts;
  const ok = recall >= WORDS_RECALL;
  verdicts.push({ check: 'words', ok, why: `${(recall * 100).toFixed(1)}% of ${total} words kept` });
  return verdicts;
}

/** A name in source code: what a reader of printed code must find again (keywords count too). */
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]{2,}/g;
/** Distinct identifiers looked for at most (a large file's first ones are a fair sample). */
const MAX_IDENTIFIERS = 4000;

/**
 * Source code printed as HTML, PDF or text keeps its identifiers: each distinct name of the
 * source (read independently) is looked for in the output's text with its white space removed,
 * since a printed line may wrap inside a name.
 */
export async function identifiersCheck(c: CaseContext): Promise<ContentVerdict[]> {
  if (family(c.from) !== 'code' || !['html', 'pdf', 'txt'].includes(c.to)) return [];
  const [source, out] = await Promise.all([decodeIndependently(c.source), shownText(c.outputs[0]!, c.to)]);
  if (source === undefined || out === undefined) return [];
  const wanted = [...new Set(source.match(IDENTIFIER))].slice(0, MAX_IDENTIFIERS);
  if (wanted.length === 0) return [];
  const shown = out.normalize('NFKC').replace(/\s+/g, '');
  const missing = wanted.filter((name) => !shown.includes(name));
  const kept = 1 - missing.length / wanted.length;
  return [
    {
      check: 'identifiers',
      ok: kept >= WORDS_RECALL,
      why:
        `${(kept * 100).toFixed(1)}% of ${wanted.length} identifiers kept` +
        (missing.length ? ` (missing: ${missing.slice(0, 5).join(', ')})` : ''),
    },
  ];
}

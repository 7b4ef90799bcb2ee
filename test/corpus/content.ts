/**
 * Content checks of the real-world run: what a reader would say of an output, judged with tools
 * that are not this project's converters (pdftotext, pdfimages, pdfinfo, ffprobe, uchardet, the
 * container's own XML). Each check says whether it applies to a case; one that applies passes,
 * fails with a reason, or is exempt with a reason (a scanned source has no words to keep).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { execa } from 'execa';
import sharp from 'sharp';
import yauzl from 'yauzl';
import { countFile } from '../../src/fidelity/counts.js';
import {
  carriesWords,
  markupText,
  textOf,
  textOfBytes,
  wordCounts,
  wordsKept,
} from '../../src/fidelity/text.js';
import { withTools } from '../../src/fidelity/tools.js';
import { readZip } from '../../src/fidelity/zip.js';
import { getFormat } from '../../src/formats/index.js';

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
  check: 'words' | 'mojibake' | 'pictures' | 'structure';
  ok: boolean;
  /** Why it failed, or what was compared. */
  why?: string;
  /** Set when the check is waived for the case, with the reason. */
  exempt?: string;
}

/** Recall of the source's words an output must reach, the same for every family and source. */
export const WORDS_RECALL = 0.9;
/** A picture at most this many pixels a side is an icon: Chromium's broken-image mark is 14x16. */
const PLACEHOLDER_PX = 20;
/** A media output's length may differ from its source's by this share (plus an MP3's padding). */
const DURATION_SHARE = 0.01;
const MP3_PADDING_S = 0.22;
/** Source words under which a PDF counts as a scan (its text is what OCR reads, not what it holds). */
const SCAN_WORDS = 20;
const MAX_TEXT_BYTES = 16 * 1024 * 1024;

const family = (f: string) => getFormat(f)?.family;
const PLAIN = new Set([
  'txt',
  'md',
  'csv',
  'tsv',
  'json',
  'yaml',
  'toml',
  'srt',
  'vtt',
  'rst',
  'tex',
  'xml',
  'html',
]);
const MEDIA_TARGET = new Set(['image', 'audio', 'video']);

async function tool(cmd: string, args: string[]): Promise<string | undefined> {
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
async function textChecks(c: CaseContext): Promise<ContentVerdict[]> {
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
      { check: 'words', ok: true, exempt: 'scanned source: its words are what OCR reads' },
    ];
  const recall = wordsKept(sourceWords, wordCounts(out));
  if (recall === undefined) return verdicts;
  const ok = recall >= WORDS_RECALL;
  verdicts.push({ check: 'words', ok, why: `${(recall * 100).toFixed(1)}% of ${total} words kept` });
  return verdicts;
}

const IMAGE_ENTRY = /\.(png|jpe?g|gif|bmp|tiff?|webp)$/i;
const MEDIA_FOLDER: Record<string, RegExp> = {
  docx: /^word\/media\//,
  pptx: /^ppt\/media\//,
  xlsx: /^xl\/media\//,
  odt: /^Pictures\//,
  odp: /^Pictures\//,
  ods: /^Pictures\//,
  epub: /./,
};

/** Distinct raster pictures larger than an icon among a ZIP container's media entries. */
function zipPictures(path: string, folder: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('not a zip'));
      const seen = new Set<string>();
      const pending: Promise<void>[] = [];
      zip.on('error', reject);
      zip.on('end', () => Promise.all(pending).then(() => resolve(seen.size), reject));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (
          !folder.test(entry.fileName) ||
          !IMAGE_ENTRY.test(entry.fileName) ||
          entry.uncompressedSize > 64e6
        )
          return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (d: Buffer) => chunks.push(d));
          stream.on('end', () => {
            const data = Buffer.concat(chunks);
            pending.push(
              sharp(data)
                .metadata()
                .then((m) => {
                  if ((m.width ?? 0) > PLACEHOLDER_PX || (m.height ?? 0) > PLACEHOLDER_PX)
                    seen.add(createHash('sha1').update(data).digest('hex'));
                })
                .catch(() => undefined),
            );
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** Distinct image objects of a PDF larger than an icon (`pdfimages -list`; masks are parts of a picture). */
async function pdfPictures(path: string): Promise<number | undefined> {
  const list = await tool('pdfimages', ['-list', path]);
  if (list === undefined) return undefined;
  const ids = new Set<string>();
  for (const line of list.split('\n')) {
    const m = /^\s*\d+\s+\d+\s+image\s+(\d+)\s+(\d+)\s+(?:\S+\s+){5}(\d+)\s+\d+/.exec(line);
    if (m && (Number(m[1]) > PLACEHOLDER_PX || Number(m[2]) > PLACEHOLDER_PX)) ids.add(m[3]!);
  }
  return ids.size;
}

async function picturesOf(path: string, format: string): Promise<number | undefined> {
  try {
    if (format === 'pdf') return await pdfPictures(path);
    const folder = MEDIA_FOLDER[format];
    return folder ? await zipPictures(path, folder) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pictures kept: the output's distinct pictures larger than an icon, so a broken-image mark counts
 * as none, against the source's. An office source is counted as the fidelity measure counts it
 * (a presentation's shown slides only; for a PDF, pixels and not drawings); an EPUB, whose
 * package may hold a 1-pixel stand-in cover, by its pictures larger than an icon.
 */
async function picturesCheck(c: CaseContext): Promise<ContentVerdict[]> {
  if (!(c.to in MEDIA_FOLDER) && c.to !== 'pdf') return [];
  const source =
    c.from === 'epub' || c.from === 'pdf'
      ? await picturesOf(c.source, c.from)
      : c.from in MEDIA_FOLDER
        ? (
            await withTools(undefined, (run) =>
              countFile(c.source, c.from as never, run, { rasterOnly: c.to === 'pdf' }),
            )
          ).images
        : undefined;
  if (!source) return [];
  const output = await picturesOf(c.outputs[0]!, c.to);
  if (output === undefined) return [];
  return [{ check: 'pictures', ok: output >= source, why: `${output} of ${source} pictures` }];
}

async function pdfPages(path: string): Promise<number | undefined> {
  const info = await tool('pdfinfo', [path]);
  const n = info && /^Pages:\s+(\d+)/m.exec(info)?.[1];
  return n ? Number(n) : undefined;
}

async function duration(path: string): Promise<number | undefined> {
  const out = await tool('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    path,
  ]);
  const d = Number(out?.trim());
  return out && Number.isFinite(d) ? d : undefined;
}

async function imageSize(path: string): Promise<string | undefined> {
  const m = await sharp(path, { pages: 1, limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  return m?.autoOrient?.width ? `${m.autoOrient.width}x${m.autoOrient.height}` : undefined;
}

/** Slide count of a presentation (its slide parts). */
async function slides(path: string, format: string): Promise<number | undefined> {
  const names: string[] = await new Promise((resolve) =>
    yauzl.open(path, { lazyEntries: false, autoClose: true }, (err, zip) => {
      if (err || !zip) return resolve([]);
      const all: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => all.push(e.fileName));
      zip.on('end', () => resolve(all));
      zip.on('error', () => resolve([]));
    }),
  );
  if (format === 'pptx') return names.filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n)).length;
  return undefined;
}

/** Headings of an EPUB's pages (h1 to h3), as text. */
async function epubHeadings(path: string): Promise<string[]> {
  const text = await readZip(path, (n) => /\.x?html?$/i.test(n));
  const out: string[] = [];
  for (const xml of text.texts.values())
    for (const m of xml.matchAll(/<h([1-3])\b[^>]*>([\s\S]*?)<\/h\1>/gi)) {
      const h = markupText(m[2]!).replace(/\s+/g, ' ').trim();
      if (h) out.push(h);
    }
  return out;
}

const squash = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** Structure where it is defined: slides and PDF pages, durations, image sizes, ebook headings. */
async function structureCheck(c: CaseContext): Promise<ContentVerdict[]> {
  const o = c.options ?? {};
  const out = c.outputs[0]!;
  const fromFamily = family(c.from);
  const toFamily = family(c.to);
  if ((c.from === 'pptx' || c.from === 'odp') && c.to === 'pdf') {
    const [s, p] = [await slides(c.source, c.from), await pdfPages(out)];
    if (s && p !== undefined) return [{ check: 'structure', ok: s === p, why: `${p} pages for ${s} slides` }];
  }
  if (c.from === 'pdf' && toFamily === 'image' && !o.pages) {
    const p = await pdfPages(c.source);
    if (p)
      return [
        { check: 'structure', ok: c.outputs.length === p, why: `${c.outputs.length} images for ${p} pages` },
      ];
  }
  const media = (f?: string) => f === 'audio' || f === 'video';
  if (
    media(fromFamily) &&
    media(toFamily) &&
    o.start === undefined &&
    o.duration === undefined &&
    o.speed === undefined
  ) {
    const [a, b] = [await duration(c.source), await duration(out)];
    if (a && b !== undefined) {
      const slack = a * DURATION_SHARE + (c.to === 'mp3' ? MP3_PADDING_S : 0) + 0.05;
      const ok = Math.abs(a - b) <= slack;
      return [{ check: 'structure', ok, why: `${b.toFixed(2)} s for ${a.toFixed(2)} s` }];
    }
  }
  const sized = o.width !== undefined || o.height !== undefined || o.resolution !== undefined;
  // A drawing (SVG) has no pixel size of its own: its units are drawn at the renderer's resolution.
  if (
    fromFamily === 'image' &&
    toFamily === 'image' &&
    !sized &&
    c.outputs.length === 1 &&
    c.from !== 'svg'
  ) {
    const [a, b] = [await imageSize(c.source), await imageSize(out)];
    if (a && b) return [{ check: 'structure', ok: a === b, why: `${b} for ${a}` }];
  }
  if (c.from === 'epub' && (c.to === 'pdf' || c.to === 'txt' || c.to === 'docx' || c.to === 'html')) {
    const headings = await epubHeadings(c.source).catch(() => []);
    const text = await shownText(out, c.to);
    if (headings.length && text !== undefined) {
      const body = squash(text);
      const lost = headings.filter((h) => !body.includes(squash(h)));
      return [
        {
          check: 'structure',
          ok: lost.length === 0,
          why: `${headings.length - lost.length} of ${headings.length} headings`,
        },
      ];
    }
  }
  return [];
}

/** The content checks in order; each gives the verdicts that apply to a case (none when none do). */
export const CONTENT_CHECKS: Array<(c: CaseContext) => Promise<ContentVerdict[]>> = [
  textChecks,
  picturesCheck,
  structureCheck,
];

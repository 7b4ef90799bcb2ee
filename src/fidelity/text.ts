import { readFile, stat } from 'node:fs/promises';
import { decodeHTML } from 'entities';
import { decodeSource } from '../detect/text/encoding.js';
import { type FormatId, getFormat } from '../formats/index.js';
import { OOXML_TEXT, ooxmlShownText, workbookShownXml } from './ooxml-text.js';
import { pagesOf, type RunTool } from './tools.js';
import { readZip } from './zip.js';

/** Text files larger than this are measured on their first part only. */
const MAX_TEXT_BYTES = 16 * 1024 * 1024;

/** The parts of a zip container that hold its text, by format. */
const TEXT_PARTS: Partial<Record<FormatId, RegExp>> = {
  // Every text container: the body with its text boxes, notes, comments, headers and footers
  // (those each distinct one once: furnitureText).
  docx: /^word\/(document|footnotes|endnotes|comments|header\d*|footer\d*)\.xml$/,
  pptx: /^ppt\/(slides\/slide\d+|notesSlides\/notesSlide\d+)\.xml$/,
  xlsx: /^xl\/(sharedStrings|worksheets\/sheet\d+)\.xml$/,
  odt: /^(content|styles)\.xml$/,
  odp: /^content\.xml$/,
  ods: /^content\.xml$/,
  // The book's pages, not its package (content.opf, toc.ncx: identifiers, metadata).
  epub: /\.x?html?$/i,
};

// Element ends that separate words (paragraphs, cells, breaks); every other tag joins its neighbours,
// since a word may be split over several runs (<w:t>Quar</w:t><w:t>terly</w:t>).
const SEPARATING_TAG =
  /<\/?(w:p|w:tab|w:br|w:cr|a:p|a:br|text:p|text:h|text:s|text:tab|text:line-break|table:table-cell|v|si|c|p|br|div|li|td|th|tr|h[1-6]|title)\b[^>]*>/gi;

/** Any tag of well-formed markup, where a `<` in text is always escaped. */
const ANY_TAG = /<[^>]*>/g;
/**
 * A tag in Markdown, where a bare `<` is text (R's `x <- 1`, `a < b`): a name or a closing slash
 * must follow it, and the tag ends before any other `<`.
 */
const MARKDOWN_TAG = /<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/gi;

/**
 * Markup to its text: comments, scripts, styles and the head vanish, separating tags become
 * spaces, other tags vanish, entities are decoded (HTML's named ones too: `&hellip;`).
 */
export function markupText(xml: string, tag = ANY_TAG): string {
  return decodeHTML(
    xml
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(script|style|head)\b[\s\S]*?<\/\1>/gi, ' ')
      .replace(SEPARATING_TAG, ' ')
      .replace(tag, ''),
  );
}

/**
 * An element a page hides (an inline `display: none`, the `hidden` attribute), up to its first
 * closing tag: a template's placeholders that no reader sees.
 */
const HIDDEN_ELEMENT =
  /<([a-z][a-z0-9]*)\b(?:[^>]*\sstyle\s*=\s*"[^"]*display\s*:\s*none|[^>]*\shidden(?=[\s>=/]))[^>]*>[\s\S]*?<\/\1\s*>/gi;

function withoutHiddenElements(html: string): string {
  return html.replace(HIDDEN_ELEMENT, ' ');
}

/**
 * Groups of an RTF header or destinations that hold no document text. Shapes hold text frames, so
 * a shape's group stays; its properties (`{\sp{\sn name}{\sv value}}`) are not text.
 */
const NON_TEXT_GROUP =
  /^\{\\(?:\*(?!\\shpinst)|(?:fonttbl|colortbl|stylesheet|info|listtable|listoverridetable|rsidtbl|generator|pict|sp)\b)/;

/** The RTF without the groups NON_TEXT_GROUP names (braces matched, escaped braces skipped). */
function dropNonTextGroups(rtf: string): string {
  let out = '';
  let i = 0;
  while (i < rtf.length) {
    const ch = rtf[i];
    if (ch === '\\') {
      out += rtf.slice(i, i + 2);
      i += 2;
    } else if (ch === '{' && NON_TEXT_GROUP.test(rtf.slice(i, i + 24))) {
      let depth = 0;
      for (; i < rtf.length; i++) {
        if (rtf[i] === '\\') i++;
        else if (rtf[i] === '{') depth++;
        else if (rtf[i] === '}' && --depth === 0) break;
      }
      i++;
      out += ' ';
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** RTF's control words for punctuation (a writer's typographic quotes and dashes). */
const RTF_SYMBOLS: Record<string, string> = {
  lquote: '\u2018',
  rquote: '\u2019',
  ldblquote: '\u201c',
  rdblquote: '\u201d',
  endash: '\u2013',
  emdash: '\u2014',
  bullet: '\u2022',
};

/** RTF to its text: header tables and destinations dropped, escapes decoded, control words removed. */
export function rtfText(rtf: string): string {
  return (
    dropNonTextGroups(rtf)
      // Line breaks in the file are not text (a writer wraps its lines inside words); one that
      // ends a control word is its delimiter.
      .replace(/(\\[a-z]+-?\d*)\r?\n/gi, '$1 ')
      .replace(/\r?\n/g, '')
      // A Unicode character is followed by its fallback for older readers (one character, as
      // \uc1 says), which is not text of its own.
      .replace(/\\u(-?\d+) ?(?:\\'[0-9a-f]{2}|\?)?/gi, (_, n: string) =>
        String.fromCharCode((Number(n) + 65536) % 65536),
      )
      .replace(/\\'([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
      .replace(
        /\\(lquote|rquote|ldblquote|rdblquote|endash|emdash|bullet)\b ?/g,
        (_, w: string) => RTF_SYMBOLS[w]!,
      )
      .replace(/\\(par|line|tab|cell|row|page|sect)\b ?/g, ' ')
      .replace(/\\[a-z]+-?\d* ?|\\\*/gi, '')
      .replace(/\\([{}\\])/g, '$1')
      .replace(/[{}]/g, '')
  );
}

/** Fenced code blocks and code spans: Markdown shows what they hold as it is, tags and all. */
const MARKDOWN_CODE = /^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[`~]*[ \t]*$|`[^`\n]+`/gm;

/** A YAML metadata block opening a Markdown document (pandoc's, Jekyll's, hotdoc's front matter). */
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
/** Metadata fields a rendered document shows (pandoc's title block); the others are not text. */
const SHOWN_FIELD = /^(title|subtitle|author|date|abstract)\s*:(.*)$/gim;

/**
 * Markdown's text without what renders as no text: front matter fields other than the title
 * block's, link and image targets, HTML tags and comments.
 */
export function markdownText(source: string): string {
  const front = FRONT_MATTER.exec(source);
  const md = front
    ? `${[...front[1]!.matchAll(SHOWN_FIELD)].map((m) => m[2]).join('\n')}\n${source.slice(front[0].length)}`
    : source;
  const prose = (part: string) =>
    markupText(part.replace(/\]\([^)]*\)/g, '] ').replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, ' '), MARKDOWN_TAG);
  let text = '';
  let at = 0;
  for (const code of md.matchAll(MARKDOWN_CODE)) {
    text += `${prose(md.slice(at, code.index))} ${code[0]} `;
    at = code.index + code[0].length;
  }
  return text + prose(md.slice(at));
}

const PLAIN: ReadonlySet<FormatId> = new Set([
  'txt',
  'md',
  'csv',
  'tsv',
  'json',
  'yaml',
  'toml',
  'srt',
  'vtt',
]);
const MARKUP: ReadonlySet<FormatId> = new Set(['html', 'xml', 'svg', 'fb2']);

/** The formats whose text this module can read. */
export function hasReadableText(format: FormatId): boolean {
  return (
    format === 'pdf' ||
    format === 'pdfa' ||
    format === 'rtf' ||
    PLAIN.has(format) ||
    MARKUP.has(format) ||
    format in TEXT_PARTS
  );
}

// Not data (JSON, YAML...): their keys repeat per record, so recall against a table says nothing.
const TEXT_FAMILIES: ReadonlySet<string> = new Set([
  'document',
  'text',
  'spreadsheet',
  'presentation',
  'ebook',
]);

/** Whether a format's words are counted: its text is readable here and is prose or a table. */
export function carriesWords(format: FormatId): boolean {
  return hasReadableText(format) && TEXT_FAMILIES.has(getFormat(format)?.family ?? '');
}

const ODF_COMMENT_META = /<(dc:creator|dc:date|meta:date-string)\b[^>]*>[\s\S]*?<\/\1>/g;
const FURNITURE_PART = /^word\/(header|footer)\d*\.xml$/;
const ODF_FURNITURE = /<style:(header|footer)(?:-first|-left)?\b[^>]*>[\s\S]*?<\/style:\1(?:-first|-left)?>/g;

/**
 * A container's text parts, with its headers and footers each distinct one once: a document
 * repeats one header as its first, even and default page's, which a flowing target shows once.
 * ODF keeps them in its styles, of which nothing else is text.
 */
function furnitureText(texts: Map<string, string>, format: FormatId): string[] {
  const seen = new Set<string>();
  const once = (xml: string) => {
    const key = markupText(xml).trim();
    if (!key || seen.has(key)) return '';
    seen.add(key);
    return xml;
  };
  return [...texts].map(([name, xml]) => {
    if (format === 'docx' && FURNITURE_PART.test(name)) return once(xml);
    if (name === 'styles.xml')
      return [...xml.matchAll(ODF_FURNITURE)].map((m) => once(m[0])).join('<text:p/>');
    // A comment's author and date are not shown with its text.
    return name === 'content.xml' ? xml.replace(ODF_COMMENT_META, '') : xml;
  });
}

/** The text a file shows, or undefined when its format's text cannot be read here. */
export async function textOf(path: string, format: FormatId, run: RunTool): Promise<string | undefined> {
  if (format === 'pdf' || format === 'pdfa')
    return run('pdftotext', ['-enc', 'UTF-8', '-q', await pagesOf(path, run), '-']);
  const parts = TEXT_PARTS[format];
  if (parts) {
    const { texts } = await readZip(path, (name) => parts.test(name));
    if (format === 'xlsx') return markupText(workbookShownXml(texts));
    const shown = OOXML_TEXT[format];
    return furnitureText(texts, format)
      .map((xml) => markupText(shown ? ooxmlShownText(xml, shown) : xml))
      .join(' ');
  }
  if (!PLAIN.has(format) && !MARKUP.has(format) && format !== 'rtf') return undefined;
  const size = (await stat(path)).size;
  return textOfBytes((await readFile(path)).subarray(0, Math.min(size, MAX_TEXT_BYTES)), format);
}

/** The text of a plain, markup or RTF file's bytes; undefined for other formats. */
export function textOfBytes(file: Uint8Array, format: FormatId): string | undefined {
  if (!PLAIN.has(format) && !MARKUP.has(format) && format !== 'rtf') return undefined;
  const bytes = Buffer.from(file.buffer, file.byteOffset, Math.min(file.byteLength, MAX_TEXT_BYTES));
  if (format === 'rtf') return rtfText(bytes.toString('latin1'));
  // Read as the engines read it: by byte order mark (UTF-16, UTF-32), UTF-8, meta charset, windows-1252.
  const { text } = decodeSource(bytes, format);
  if (format === 'md') return markdownText(text);
  if (format === 'html') return markupText(withoutHiddenElements(text));
  return MARKUP.has(format) ? markupText(text) : text;
}

/** Chinese, Japanese and Korean characters: their text is counted by character. */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
/** A decimal number, one CJK character, or a run of other letters and digits. */
const WORD = new RegExp(`\\d+\\.\\d+|[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{N}])+`, 'gu');

/**
 * The words of a text, case- and accent-form-folded, as a multiset. Decimal numbers count by
 * value, since spreadsheets show 0.80 as 0.8. Chinese and Japanese write no spaces between words
 * and a line break may fall anywhere in a sentence, so CJK text counts character by character
 * (Korean too, whose spaced words an engine may still break differently).
 */
export function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const tokens = text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  for (const token of tokens) {
    const w = /^\d+\.\d+$/.test(token) ? String(Number(token)) : token;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return counts;
}

export function totalWords(counts: Map<string, number>): number {
  let n = 0;
  for (const c of counts.values()) n += c;
  return n;
}

/**
 * Recall of the source's words in the output: each source word counts as kept up to the number of
 * times the output has it. Undefined when the source has no words.
 */
export function wordsKept(source: Map<string, number>, output: Map<string, number>): number | undefined {
  const total = totalWords(source);
  if (total === 0) return undefined;
  let kept = 0;
  for (const [w, c] of source) kept += Math.min(c, output.get(w) ?? 0);
  return kept / total;
}

import Papa from 'papaparse';
import { parse as parseToml } from 'smol-toml';
import { parseAllDocuments } from 'yaml';
import { CONFIDENCE, type Finding } from '../types.js';
import type { DecodedText } from './decode.js';

/** The lines a sniffer may judge: a head cut mid-file drops its last, partial line. */
export function wholeLines({ text, complete }: DecodedText): string[] {
  const lines = text.split(/\r?\n/);
  if (!complete && lines.length > 1) lines.pop();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines;
}

const isContainer = (v: unknown) => typeof v === 'object' && v !== null;

/** JSON (one value) versus JSON Lines (one value a line). */
export function sniffJson(doc: DecodedText, lines: string[]): Finding | undefined {
  const start = doc.text.trimStart()[0];
  if (start !== '{' && start !== '[') return undefined;
  if (doc.complete && isContainer(tryJson(doc.text)))
    return { id: 'json', confidence: CONFIDENCE.STRONG_TEXT };
  const filled = lines.filter((l) => l.trim() !== '');
  if (filled.length >= 2 && filled.every((l) => isContainer(tryJson(l))))
    return { id: 'jsonl', confidence: CONFIDENCE.STRONG_TEXT };
  // A pretty-printed document cut short (a large file's head, or a truncated file): a lone
  // opening bracket, then lines that each start as a JSON member or value.
  if (filled.length > 0 && /^\s*[[{]\s*$/.test(filled[0]!)) {
    const rest = filled.slice(1, 200);
    if (rest.filter((l) => JSON_LINE.test(l)).length >= rest.length * 0.9)
      return { id: 'json', confidence: CONFIDENCE.TEXT };
  }
  return undefined;
}

const JSON_LINE = /^\s*("(?:[^"\\]|\\.)*"\s*:|"|[-\d[\]{}]|true\b|false\b|null\b)/;

function tryJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

const TOML_TABLE = /^\s*\[\[?[A-Za-z0-9_."' -]+\]\]?\s*(#.*)?$/;
const TOML_KEY = `("[^"\n]*"|'[^'\n]*'|[A-Za-z0-9_-]+)`;
const TOML_PAIR = new RegExp(`^\\s*${TOML_KEY}(\\s*\\.\\s*${TOML_KEY})*\\s*=\\s*\\S`);

/**
 * TOML: `key = value` pairs and `[table]` headers that parse as TOML. Shell-style `NAME=value`
 * assignments are also valid TOML, so a file needs a table or spaced `key = value` pairs.
 */
export function sniffToml(doc: DecodedText, lines: string[]): Finding | undefined {
  const content = topLevelTomlLines(lines);
  if (content.length === 0) return undefined;
  const pairs = content.filter((l) => TOML_PAIR.test(l));
  const tables = content.filter((l) => TOML_TABLE.test(l)).length;
  if (pairs.length === 0 || pairs.length + tables < content.length * 0.8) return undefined;
  const spaced = pairs.filter((l) => /\S = /.test(l)).length;
  // Unspaced `a.b=0` or `a={}` is TOML too where a dotted key or an inline table or array shows it.
  const tomlOnly = pairs.some((l) => TOML_ONLY.test(l));
  if (tables === 0 && spaced < pairs.length / 2 && !tomlOnly) return undefined;
  if (!doc.complete) return { id: 'toml', confidence: CONFIDENCE.TEXT };
  try {
    parseToml(doc.text);
    return { id: 'toml', confidence: CONFIDENCE.STRONG_TEXT };
  } catch {
    // Plainly TOML though not valid (a duplicate key, a bad date): its values are typed the TOML
    // way (quoted, numbers, dates, arrays), unlike INI files' bare words. Still TOML, weaker.
    const typed = pairs.filter((l) => TOML_TYPED_VALUE.test(l)).length;
    return typed >= pairs.length * 0.8 ? { id: 'toml', confidence: CONFIDENCE.HEURISTIC } : undefined;
  }
}

const TOML_TYPED_VALUE = /=\s*("|'|\[|\{|[+-]?(\d|inf\b|nan\b)|true\b|false\b)/;
const TOML_ONLY = new RegExp(`^\\s*(${TOML_KEY}\\s*\\.\\s*${TOML_KEY}\\s*=|${TOML_KEY}\\s*=\\s*[[{])`);

/** Non-blank, non-comment lines outside the multi-line arrays and inline tables a pair opened. */
function topLevelTomlLines(lines: string[]): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  for (const line of lines) {
    const t = line.trim();
    const quotes = count(line, /"""|'''/g);
    if (inString) {
      // A multi-line string's body is the value of the pair that opened it.
      if (quotes % 2 === 1) inString = false;
      continue;
    }
    if (quotes % 2 === 1) inString = true;
    if (depth === 0 && t !== '' && !t.startsWith('#')) out.push(line);
    // Brackets inside strings are rare in the lines that matter; a rough count is enough here.
    const value = depth === 0 ? line.slice(line.indexOf('=') + 1) : line;
    if (depth > 0 || TOML_PAIR.test(line))
      depth = Math.max(0, depth + count(value, /[[{]/g) - count(value, /[\]}]/g));
  }
  return out;
}

const count = (s: string, re: RegExp) => s.match(re)?.length ?? 0;

const YAML_KEY = /^\s*(- +)?("[^"]*"|'[^']*'|[A-Za-z0-9_$][\w .$/-]*)\s*:(\s|$)/;
const YAML_ITEM = /^\s*-(\s|$)/;

/**
 * YAML: most lines are `key: value` mappings or `- ` items and it parses to a mapping.
 * `# lines` are comments to YAML but headings to Markdown, so they count for neither;
 * a Markdown file with front matter is Markdown.
 */
export function sniffYaml(doc: DecodedText, lines: string[]): Finding | undefined {
  const docStart = lines[0]?.trim() === '---';
  if (docStart && hasFrontMatterBody(lines)) return undefined;
  const content = lines.filter(
    (l) => l.trim() !== '' && !l.trimStart().startsWith('#') && l.trim() !== '---',
  );
  if (content.length === 0) return undefined;
  let keys = 0;
  let items = 0;
  // Lines indented under a key are its nested values or block scalar text.
  let nested = 0;
  for (const l of content) {
    const key = YAML_KEY.test(l);
    const item = YAML_ITEM.test(l);
    if (key) keys++;
    if (item) items++;
    if (!key && !item && /^\s+\S/.test(l)) nested++;
  }
  if (keys === 0 || keys + items + nested < content.length * 0.85 || nested > keys + items) return undefined;
  if (!doc.complete) return { id: 'yaml', confidence: CONFIDENCE.TEXT };
  if (parsesAsYamlMapping(doc.text))
    return { id: 'yaml', confidence: docStart ? CONFIDENCE.STRONG_TEXT : CONFIDENCE.TEXT };
  // Hand-written YAML that a strict parser refuses (`To: a:`) but that is all `key: value` lines.
  return keys >= content.length * 0.95 && keys >= 3
    ? { id: 'yaml', confidence: CONFIDENCE.HEURISTIC }
    : undefined;
}

function parsesAsYamlMapping(text: string): boolean {
  try {
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return false;
    return docs.some((d) => isContainer(d.toJS()));
  } catch {
    return false;
  }
}

/** `---` front matter closed by `---` and followed by text that is not more YAML documents. */
function hasFrontMatterBody(lines: string[]): boolean {
  const close = lines.indexOf('---', 1);
  if (close < 0) return false;
  const body = lines.slice(close + 1).filter((l) => l.trim() !== '');
  return body.length > 0 && !body.every((l) => YAML_KEY.test(l) || YAML_ITEM.test(l) || l.startsWith(' '));
}

/**
 * Delimited tables: at least two rows that split into the same number (two or more) of fields.
 * Rows may also be ragged (fewer fields than the header, as when trailing empty fields are left
 * out) when the header has three or more fields and the fields are short, unlike prose.
 * Tabs make TSV; commas or semicolons CSV.
 */
export function sniffDelimited(lines: string[]): Finding | undefined {
  // `#` comment lines above or among the rows (tzdata's zone.tab) are not rows.
  const rows = lines.filter((l) => !l.startsWith('#')).slice(0, 200);
  if (rows.length < 2) return undefined;
  for (const [delimiter, id] of [
    ['\t', 'tsv'],
    [',', 'csv'],
    [';', 'csv'],
  ] as const) {
    // Quoted fields may span lines, so not every line need hold the delimiter; the parse decides.
    if (rows.filter((r) => r.includes(delimiter)).length < rows.length / 2) continue;
    // Code ends its statements with a semicolon; tables do not end rows with their delimiter.
    if (rows.filter((r) => r.trimEnd().endsWith(delimiter)).length > rows.length / 2) continue;
    const parsed = Papa.parse<string[]>(rows.join('\n'), { delimiter, skipEmptyLines: true });
    if (parsed.errors.some((e) => e.type === 'Quotes') || parsed.data.length < 2) continue;
    if (isTable(parsed.data))
      return { id, confidence: delimiter === ';' ? CONFIDENCE.PLAIN_TEXT : CONFIDENCE.TEXT };
  }
  return undefined;
}

function isTable(data: string[][]): boolean {
  const width = data[0]!.length;
  // A first line of another width above rows that agree is a preamble (a count, a title);
  // the last row may be cut short (a truncated file).
  const body = data.slice(1, -1);
  const bodyWidth = body[0]?.length ?? 0;
  if (body.length >= 2 && bodyWidth >= 2 && body.every((r) => r.length === bodyWidth)) return true;
  if (width < 2) return false;
  if (data.every((r) => r.length === width)) return true;
  // Ragged rows: optional trailing fields left out (tzdata's zone.tab), short fields unlike prose.
  const widest = Math.max(...data.map((r) => r.length));
  if (widest < 3 || data.length < 3 || data.some((r) => r.length < 2)) return false;
  const fields = data.flat();
  return fields.reduce((sum, f) => sum + f.length, 0) / fields.length < 30;
}

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import Papa from 'papaparse';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { decodeSource } from '../../src/detect/text/encoding.js';
import { FileconvError } from '../../src/errors/index.js';
import type { FormatId } from '../../src/formats/index.js';
import { overflowed } from './nesting.js';
import { type DataRecord, typedColumns } from './shape.js';

/** A YAML document may reuse anchors a little; past this it is an expansion bomb. */
export const YAML_MAX_ALIASES = 50;

export function malformed(format: string, detail: string, cause?: unknown): FileconvError {
  return new FileconvError('MALFORMED_DOCUMENT', `The file is not valid ${format}: ${detail}`, { cause });
}

export function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e)
    .split('\n')[0]!
    .slice(0, 200);
}

/**
 * Decodes text input: UTF-8, or another encoding told by a byte order mark, a declaration or a
 * confident guess (Big5, Shift_JIS, windows-1251...). NUL bytes outside UTF-16 and UTF-32, or
 * bytes whose encoding cannot be told, mean the file is not readable text.
 */
export function decodeText(bytes: Buffer, format: string): string {
  const { text, encoding, confident } = decodeSource(bytes, format as FormatId);
  if (!confident) throw malformed(format, 'it is not UTF-8, and its encoding could not be told.');
  if (!/^UTF-(16|32)/i.test(encoding) && bytes.includes(0))
    throw malformed(format, 'it contains binary data.');
  return text.replace(/^\uFEFF/, '');
}

/**
 * Where the DOCTYPE declaration ends (after its closing `>`), skipping quoted literals, comments
 * and the internal subset's brackets, or -1 when it is not closed.
 */
function doctypeEnd(text: string, start: number): number {
  let depth = 0;
  let quote = '';
  for (let i = start + '<!DOCTYPE'.length; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (text.startsWith('<!--', i)) {
      const close = text.indexOf('-->', i + 4);
      if (close < 0) return -1;
      i = close + 2;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '>' && depth <= 0) return i + 1;
  }
  return -1;
}

/**
 * The document without its DOCTYPE: DTDs are never fetched, read or applied, so entity bombs and
 * external entities have nothing to expand; references to entities the DTD declared stay as text.
 */
export function withoutDoctype(text: string): string {
  const start = text.search(/<!DOCTYPE\b/i);
  if (start < 0) return text;
  const end = doctypeEnd(text, start);
  if (end < 0) throw malformed('XML', 'the DOCTYPE declaration is not closed.');
  return text.slice(0, start) + text.slice(end);
}

function parseXml(source: string): unknown {
  const text = withoutDoctype(source);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw malformed('XML', `${valid.err.msg} (line ${valid.err.line})`);
  const parser = new XMLParser({
    // With the DOCTYPE gone only predefined, character and HTML named references are decoded.
    processEntities: true,
    htmlEntities: true,
    ignoreAttributes: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    parseAttributeValue: false,
  });
  return parser.parse(text);
}

/** The widest row's length (a loop: spreading a million rows into Math.max overflows the stack). */
export function widest(header: readonly unknown[], body: readonly (readonly unknown[])[]): number {
  let width = header.length;
  for (const row of body) if (row.length > width) width = row.length;
  return width;
}

/** Header names made unique and non-empty, so no cell is lost to a duplicate or blank name. */
export function uniqueNames(raw: readonly unknown[], width: number): string[] {
  const seen = new Set<string>();
  return Array.from({ length: width }, (_, i) => {
    const given =
      raw[i] === null || raw[i] === undefined || raw[i] === '' ? `column${i + 1}` : String(raw[i]);
    let name = given;
    for (let n = 2; seen.has(name); n++) name = `${given}_${n}`;
    seen.add(name);
    return name;
  });
}

function parseDelimited(text: string, delimiter: ',' | '\t', format: string): DataRecord[] {
  // Rows as arrays: papaparse's header mode would assign a `__proto__` column through the prototype.
  const result = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: 'greedy' });
  const broken = result.errors.find((e) => e.type === 'Quotes' || e.type === 'Delimiter');
  if (broken) throw malformed(format, `${broken.message} (row ${broken.row ?? '?'})`);
  const [header = [], ...body] = result.data;
  const names = uniqueNames(header, widest(header, body));
  return typedColumns(body, names.length).map(
    (cells): DataRecord => Object.fromEntries(names.map((name, i) => [name, cells[i]])),
  );
}

function parseJsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw malformed('JSON Lines', `line ${i + 1}: ${firstLine(e)}`, e);
    }
  });
  return out;
}

/**
 * The top-level objects and arrays of concatenated JSON (`{...}{...}` or pretty-printed objects one
 * after another, as `jq` and many exporters write them), as source slices; undefined when the text
 * is not a run of objects and arrays separated by white space only. Strings are skipped whole, so
 * brackets inside them do not count.
 */
function concatenatedValues(text: string): string[] | undefined {
  const values: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      if (depth === 0) return undefined;
      inString = true;
    } else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth < 0) return undefined;
      if (depth === 0) values.push(text.slice(start, i + 1));
    } else if (depth === 0 && !/\s/.test(c)) return undefined;
  }
  return depth === 0 ? values : undefined;
}

/**
 * JSON, or several JSON values in one .json file, read as a list with one item a value:
 * newline-delimited JSON (one value a line, as logs and exports write it) and concatenated
 * pretty-printed objects. A single broken document keeps JSON's own error.
 */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
    if (lines.length >= 2 && /^\s*[[{]/.test(lines[1]!)) {
      try {
        return parseJsonLines(text);
      } catch {
        // not one value a line: perhaps values spread over lines, tried next
      }
    }
    const values = concatenatedValues(text);
    if (!values || values.length < 2) throw e;
    try {
      return values.map((v) => JSON.parse(v));
    } catch {
      throw e;
    }
  }
}

/** Parses a text data format into plain values. */
export function parseText(format: FormatId, text: string): unknown {
  switch (format) {
    case 'csv':
      return parseDelimited(text, ',', 'CSV');
    case 'tsv':
      return parseDelimited(text, '\t', 'TSV');
    case 'jsonl':
      return parseJsonLines(text);
    case 'xml':
      return parseXml(text);
  }
  try {
    if (format === 'json') return parseJson(text);
    if (format === 'yaml') return parseYaml(text, { maxAliasCount: YAML_MAX_ALIASES, prettyErrors: false });
    if (format === 'toml') return parseToml(text);
  } catch (e) {
    if (overflowed(e)) throw e; // nested too deep: withinNesting (nesting.ts) says so
    if (/alias count/i.test(firstLine(e))) {
      throw new FileconvError('CONVERT_FAILED', 'The YAML expands too many aliases and was refused.', {
        cause: e,
      });
    }
    throw malformed(format.toUpperCase(), firstLine(e), e);
  }
  throw new FileconvError('CONVERT_FAILED', `The data engine cannot read ${format}.`);
}

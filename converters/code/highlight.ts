import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSource } from '../../src/detect/text/encoding.js';
import { type FormatId, getFormat } from '../../src/formats/index.js';

/**
 * pandoc's highlighter (skylighting) name of each source code format; `default` where it has no
 * grammar (Windows batch files), which prints the code with line numbers and no colours.
 */
export const CODE_LANGUAGES: Readonly<Record<FormatId, string>> = {
  bat: 'default',
  c: 'c',
  cpp: 'cpp',
  cs: 'cs',
  css: 'css',
  diff: 'diff',
  dockerfile: 'dockerfile',
  dtd: 'dtd',
  go: 'go',
  hs: 'haskell',
  ini: 'ini',
  java: 'java',
  js: 'javascript',
  kt: 'kotlin',
  // Less is CSS with variables and mixins: CSS's grammar colours all but its `@name` variables.
  less: 'css',
  lua: 'lua',
  makefile: 'makefile',
  php: 'php',
  pl: 'perl',
  // Java properties are `key=value` lines with `#` comments, as INI files are.
  properties: 'ini',
  ps1: 'powershell',
  py: 'python',
  r: 'r',
  rb: 'ruby',
  rs: 'rust',
  scss: 'scss',
  sh: 'bash',
  sql: 'sql',
  swift: 'swift',
  ts: 'typescript',
  xsl: 'xslt',
};

export const CODE_FORMATS = Object.keys(CODE_LANGUAGES) as FormatId[];

/** The source as UTF-8 text: UTF-16, UTF-32 and Latin-1 files are read by their BOM or bytes. */
export async function sourceText(input: string, from: FormatId): Promise<string> {
  return decodeSource(await readFile(input), from).text;
}

/**
 * Writes the source as a Markdown document holding one fenced, numbered code block in its
 * language, which pandoc renders highlighted; returns the document's path. The fence is longer
 * than any run of backticks in the code, so no line of it can close the block.
 */
export async function codeAsMarkdown(input: string, from: FormatId, workDir: string): Promise<string> {
  const text = await sourceText(input, from);
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const doc = join(workDir, 'source.md');
  await writeFile(doc, `${fence} {.${CODE_LANGUAGES[from] ?? 'default'} .numberLines}\n${body}${fence}\n`);
  return doc;
}

/** The page title of a highlighted source: the language's name. */
export const codeTitle = (from: FormatId) => getFormat(from)?.name ?? 'Source code';

/** Lines longer than this are minified or generated code, which Chromium lays out highlighted too slowly to print. */
const LONGEST_PRINTED_LINE = 2000;

/** Whether source text is better printed as plain text than highlighted (minified or generated code). */
export function tooDenseToHighlight(text: string): boolean {
  let start = 0;
  for (let end = text.indexOf('\n'); ; end = text.indexOf('\n', start)) {
    if ((end < 0 ? text.length : end) - start > LONGEST_PRINTED_LINE) return true;
    if (end < 0) return false;
    start = end + 1;
  }
}

import { type FormatId, getFormat } from '../../formats/index.js';

/** Prose formats: their readers take any text. */
export const PROSE_FORMATS: ReadonlySet<FormatId> = new Set(['md', 'rst', 'org', 'tex']);

/** Formats with a grammar that detection checks a named text against (named.ts). */
export const STRICT_FORMATS: ReadonlySet<FormatId> = new Set([
  'xml',
  'svg',
  'html',
  'fb2',
  'json',
  'jsonl',
  'yaml',
]);

/**
 * Formats whose declared name detection weighs against the bytes (plain text, prose, code, and the
 * strict formats it can check the text against); for these the detected format already has the
 * last word. Kept apart from named.ts so the server's source-format rule loads no parser.
 */
export function nameable(id: FormatId): boolean {
  return id === 'txt' || getFormat(id)?.family === 'code' || PROSE_FORMATS.has(id) || STRICT_FORMATS.has(id);
}

/**
 * Dialects and their base language: a C++ finding agrees with a `.h` name, a JavaScript finding
 * with a `.ts` one (detection keeps what the content showed; the names match).
 */
const KIN: readonly (readonly FormatId[])[] = [
  ['c', 'cpp'],
  ['js', 'ts'],
];

export const kin = (a: FormatId, b: FormatId) => a !== b && KIN.some((k) => k.includes(a) && k.includes(b));

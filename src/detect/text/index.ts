import { CONFIDENCE, type Finding } from '../types.js';
import { sniffDelimited, sniffJson, sniffToml, sniffYaml, wholeLines } from './data.js';
import { type DecodedText, decodeText } from './decode.js';
import { jsonVocabulary, sniffMarked, xmlVocabulary } from './documents.js';
import { sniffMarkup } from './markup.js';
import { bestScored } from './scored.js';

export { decodeText };

const SHEBANGS: Array<[RegExp, string]> = [
  [/\b(node|nodejs|bun)\b/, 'js'],
  [/\b(deno|ts-node|tsx)\b/, 'ts'],
  [/\bpython[\d.]*\b/, 'py'],
  [/\bperl[\d.]*\b/, 'pl'],
  [/\bruby[\d.]*\b/, 'rb'],
  [/\bphp[\d.]*\b/, 'php'],
  [/\blua(jit|[\d.]*)\b/, 'lua'],
  [/\bmake\s+-f\b/, 'makefile'],
  [/\b(sh|bash|dash|zsh|ksh)\b/, 'sh'],
];

/** A scored prose or code match must beat a delimited-table reading by this much. */
const OVERRIDES_TABLE = 4;

/**
 * Names the text format of a head buffer, or undefined when it is not text. Order matters:
 * explicit markers first (shebang, RTF, markup), then formats that must parse (JSON, TOML,
 * YAML), then tables, then scored prose and code; whatever is left is plain text.
 */
export function sniffText(head: Buffer, complete: boolean): Finding | undefined {
  const doc = decodeText(head, complete);
  if (!doc) return undefined;
  return sniffDecoded(doc);
}

export function sniffDecoded(doc: DecodedText): Finding {
  const text = doc.text;
  if (text.trim() === '') return { id: 'txt', confidence: CONFIDENCE.WEAK };
  if (text.startsWith('#!')) {
    const line = text.split('\n', 1)[0]!;
    for (const [re, id] of SHEBANGS) if (re.test(line)) return { id, confidence: CONFIDENCE.STRONG_TEXT };
  }
  if (text.startsWith('{\\rtf')) return { id: 'rtf', confidence: CONFIDENCE.SIGNATURE };
  // PHP opens with its tag; after it comes code or the HTML it prints, not an XML prolog.
  if (/^\s*<\?php\b/.test(text)) return { id: 'php', confidence: CONFIDENCE.STRONG_TEXT };
  const marked = sniffMarked(text);
  if (marked) return marked;
  const markup = sniffMarkup(text);
  // A page with PHP blocks further down is a PHP template, whatever HTML it opens with: the
  // `<?php` tag is no HTML, and the file is the server's program, not the page a browser gets.
  if (markup?.id === 'html' && /<\?php\b/.test(text)) return { id: 'php', confidence: markup.confidence };
  if (markup) return (markup.id === 'xml' && xmlVocabulary(text)) || markup;
  const lines = wholeLines(doc);
  const data = sniffJson(doc, lines) ?? sniffToml(doc, lines) ?? sniffYaml(doc, lines);
  if (data) return (data.id === 'json' && jsonVocabulary(text)) || data;
  const table = sniffDelimited(lines);
  const scored = bestScored(text);
  if (table && (!scored || scored.score < OVERRIDES_TABLE)) return table;
  if (scored)
    return { id: scored.id, confidence: scored.score >= 5 ? CONFIDENCE.TEXT : CONFIDENCE.HEURISTIC };
  return { id: 'txt', confidence: CONFIDENCE.PLAIN_TEXT };
}

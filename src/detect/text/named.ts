import { parseAllDocuments } from 'yaml';
import { type FormatId, getFormat } from '../../formats/index.js';
import { CONFIDENCE, type Finding } from '../types.js';
import type { DecodedText } from './decode.js';
import { kin, nameable, STRICT_FORMATS } from './nameable.js';

/**
 * Where the bytes only guess, the declared name decides between text formats. A short Python
 * script may show no Python trait at all, a Perl module may be a table of data, a C++ header may
 * read as C: its `.py`, `.pm` or `.hpp` name is then the best evidence there is, as long as the
 * text is plausible for it. A name never wins over what the bytes show clearly (a signature, a
 * root element, a parse), nor on text that cannot be the declared format (a `.js` page that opens
 * with `<script>`, a ChangeLog named `.yaml`).
 */
export function agreeWithName(declared: FormatId, finding: Finding, doc: DecodedText): Finding {
  if (finding.id === declared || kin(declared, finding.id) || !isGuess(declared, finding)) return finding;
  if (!plausibleAs(declared, doc.text.trimStart(), doc.complete)) return finding;
  // The bytes' encoding stays what it was found to be.
  const { encoding, encodingSource, encodingConfidence } = finding;
  return {
    id: declared,
    confidence: Math.min(finding.confidence, CONFIDENCE.HEURISTIC),
    ...(encoding ? { encoding, encodingSource, encodingConfidence } : {}),
  };
}

const familyOf = (id: FormatId) => getFormat(id)?.family;

/** Whether `finding` is a reading the declared name may overrule. */
function isGuess(declared: FormatId, finding: Finding): boolean {
  if (!nameable(declared)) return false;
  if (finding.confidence >= CONFIDENCE.STRONG_TEXT) return false;
  if (finding.id === 'txt') return true;
  const family = familyOf(finding.id);
  // A `.txt` name claims plain text: it overrules code read from a few traits (a CMake list, a
  // change log), not prose markup, which is often written as `.txt` (docutils' reST).
  if (declared === 'txt') return finding.confidence <= CONFIDENCE.HEURISTIC && family === 'code';
  // Prose and code readings from a few traits; other readings (a table, a partial parse) stand.
  return finding.confidence <= CONFIDENCE.HEURISTIC && (family === 'text' || family === 'code');
}

const YAML_LINE = /^\s*(- |-$|("[^"]*"|'[^']*'|[\w$][\w .$/-]*)\s*:(\s|$)|#|$)/;

/**
 * Formats with a grammar: text named one of them agrees only when it could be one. Prose and
 * code readers take any text, except markup (which no code or prose file starts with).
 */
const STRICT: Partial<Record<FormatId, (text: string, complete: boolean) => boolean>> = {
  xml: (t) => t.startsWith('<'),
  svg: (t) => t.startsWith('<'),
  html: (t) => t.startsWith('<'),
  fb2: (t) => t.startsWith('<'),
  json: (t, complete) => t.startsWith('{') || t.startsWith('[') || (complete && isJsonValue(t)),
  jsonl: (t) => t.startsWith('{') || t.startsWith('['),
  yaml: (t, complete) => (complete ? yamlContainer(t) : t.split('\n', 20).every((l) => YAML_LINE.test(l))),
};

function plausibleAs(declared: FormatId, text: string, complete: boolean): boolean {
  if (STRICT_FORMATS.has(declared)) return STRICT[declared]?.(text, complete) ?? false;
  // A PHP page may open with the HTML it prints; no other code or prose file opens with markup.
  if (declared === 'php') return !text.startsWith('<') || /<\?(php|=)/.test(text);
  return !text.startsWith('<');
}

/** A whole JSON text that is a single scalar (`42`, `"name"`, `true`) is still JSON. */
function isJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function yamlContainer(text: string): boolean {
  try {
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return false;
    return docs.some((d) => {
      const v = d.toJS();
      return typeof v === 'object' && v !== null;
    });
  } catch {
    return false;
  }
}

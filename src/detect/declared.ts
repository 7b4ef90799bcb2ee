import { FileconvError } from '../errors/index.js';
import { type FormatId, getFormat } from '../formats/index.js';
import { detectFile } from './index.js';
import { CONFIDENCE, type Finding } from './types.js';

/**
 * The one rule for whether a file may be converted as the format it was declared as. Engines are
 * pinned to the declared format, but the bytes are checked before any engine runs, so a file
 * that is a different kind of thing (an SVG or ImageMagick MVG script uploaded as PNG, an HTML
 * page uploaded as DOCX) never reaches a parser chosen for something else.
 *
 * - Text declared as a text format is left to that format's parser (a Markdown file full of HTML
 *   is still Markdown to pandoc); only the declared parser ever reads it.
 * - A binary format whose content is text of any kind is refused: no PNG, PDF or DOCX is text.
 * - A confident finding (a signature, a container, a complete text parse) of another format is
 *   refused, except between formats one engine reads alike (mp4/m4a/mov/3gp, ogg/opus/ogv,
 *   mkv/mka/webm, wmv/wma, mp3/mp2, pdf/pdfa).
 * - Weak findings (truncated or unknown bytes) are left to the engine, which reports a damaged file.
 */

/** Formats whose files are text: their parsers are pinned, and no binary format's file is text. */
const TEXTUAL = new Set<FormatId>([
  'txt',
  'md',
  'rst',
  'tex',
  'csv',
  'tsv',
  'json',
  'jsonl',
  'yaml',
  'toml',
  'xml',
  'html',
  'svg',
  'rtf',
  'ps',
  'eps',
  'fb2',
]);

/** Whether a format's files are text: the list above, and every source code format. */
const isTextual = (id: FormatId) => TEXTUAL.has(id) || getFormat(id)?.family === 'code';

/** Formats one engine opens with the same reader, so a file of one declared as another is fine. */
const ALIKE: FormatId[][] = [
  ['mp4', 'm4a', 'mov', '3gp', '3g2'],
  ['ogg', 'opus', 'ogv'],
  ['webm', 'mkv', 'mka'],
  ['wmv', 'wma'],
  ['mp3', 'mp2'],
  ['pdf', 'pdfa'],
  ['ps', 'eps'],
  ['heic', 'avif'],
  ['mobi', 'azw3'],
];

function alike(a: FormatId, b: FormatId): boolean {
  if (a === b) return true;
  return ALIKE.some((group) => group.includes(a) && group.includes(b));
}

function name(id: FormatId): string {
  return getFormat(id)?.name ?? id;
}

/**
 * Why a file found to be `finding` may not be converted as `declared`, or undefined when it may.
 * `finding` is what detection made of the bytes alone.
 */
export function declaredConflict(declared: FormatId, finding: Finding): string | undefined {
  const detected = finding.id;
  if (alike(declared, detected)) return undefined;
  const textDeclared = isTextual(declared);
  const textFound = isTextual(detected);
  if (textDeclared && textFound) return undefined;
  if (!textDeclared && textFound && finding.confidence >= CONFIDENCE.PLAIN_TEXT) {
    return `The file is text (${name(detected)}), not a ${name(declared)}; it was not converted.`;
  }
  if (detected !== 'bin' && finding.confidence >= CONFIDENCE.TEXT) {
    return `The file is a ${name(detected)}, not a ${name(declared)}; convert it as ${detected}.`;
  }
  return undefined;
}

/** The FORMAT_MISMATCH error for a file found to be `finding` declared as `declared`, if any. */
export function formatMismatch(declared: FormatId, finding: Finding): FileconvError | undefined {
  const why = declaredConflict(declared, finding);
  return why
    ? new FileconvError('FORMAT_MISMATCH', why, { extra: { declared, detected: finding.id } })
    : undefined;
}

/** Throws FORMAT_MISMATCH when the file at `path` may not be converted as `declared`; else what it is. */
export async function checkDeclaredFormat(path: string, declared: FormatId): Promise<Finding> {
  const finding = await detectFile(path);
  const mismatch = formatMismatch(declared, finding);
  if (mismatch) throw mismatch;
  return finding;
}

import type { DetectReport } from '../detect/index.js';
import { nameable, PROSE_FORMATS } from '../detect/text/nameable.js';
import { CONFIDENCE } from '../detect/types.js';
import { FileconvError } from '../errors/index.js';
import type { FormatId } from '../formats/index.js';
import { isTextFormat } from '../formats/text.js';

/**
 * The one rule for the format a file is converted from, used by the CLI, the library and the
 * server alike. The bytes decide, except where they cannot: unknown bytes take the declared
 * format, and when detection rests on text heuristics (below STRONG_TEXT) and the declared
 * format is a prose format, the declared name wins (a Markdown README that opens with an HTML
 * block, a ChangeLog.md read as YAML). For code and the strict text formats (XML, JSON, YAML)
 * detection has already weighed the name against the text (detect/text/named.ts): a `.py` with
 * no Python traits is py there, a ChangeLog named `.yaml` stays plain text, Markdown named
 * `.xml` stays Markdown. Undefined when neither says anything usable.
 */
export function sourceFormatOf(report: DetectReport): FormatId | undefined {
  const { declared, detected } = report;
  if (detected === 'bin') return declared === 'bin' ? undefined : declared;
  // `.txt` names no structure, so it never overrides one the bytes show (a CSV or reST in a .txt).
  if (declared === detected || declared === 'txt' || nameable(declared)) {
    // A prose reader takes any text, so a weak reading of markup does not bar the name.
    return PROSE_FORMATS.has(declared) && overrules(report) ? declared : detected;
  }
  return overrules(report) ? declared : detected;
}

const overrules = ({ declared, detected, confidence }: DetectReport) =>
  declared !== detected &&
  confidence < CONFIDENCE.STRONG_TEXT &&
  isTextFormat(declared) &&
  isTextFormat(detected);

/** Detects a file (its name as the declared format) and applies the rule; throws when nothing tells. */
export async function sourceFormat(path: string, filename: string): Promise<FormatId> {
  // Loaded on use: the server imports this module for the rule alone and detects through its engine.
  const { detect } = await import('../detect/index.js');
  const found = sourceFormatOf(await detect(path, { filename }));
  if (!found) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `Could not tell the format of ${filename}; give it with --from.`,
    );
  }
  return found;
}

import { detect } from '../detect/index.js';
import { FileconvError } from '../errors/index.js';
import { type FormatId, formatFromFilename } from '../formats/index.js';

/** The format a file is converted from: the detected one, or the name's when detection cannot tell. */
export async function sourceFormat(path: string, filename: string): Promise<FormatId> {
  const declared = formatFromFilename(filename)?.id;
  const report = await detect(path, { filename });
  let detected = report.detected && report.detected !== 'bin' ? report.detected : undefined;
  // Plain text is the weakest finding: a .md or .csv that reads as text is taken at its word.
  if (detected === 'txt' && declared) detected = declared;
  const found = detected ?? declared;
  if (!found) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `Could not tell the format of ${filename}; give it with --from.`,
    );
  }
  return found;
}

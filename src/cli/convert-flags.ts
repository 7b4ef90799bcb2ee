import { readCertificateUrl } from '../core/sign-certificate.js';
import { readStampPictureUrl } from '../core/stamp-picture.js';
import { parseOptionPairs } from './convert-io.js';
import type { RemoteFlags } from './remote.js';

/** The convert command's flags, and the options they and a recipe give a run (convert-run.ts). */

/** Flags that are options by another name: `--pages 2-5` is `-O pages=2-5`. */
export interface OperationFlags {
  pages?: string;
  rotate?: string;
  compress?: string | true;
  ocr?: boolean;
  lang?: string;
  password?: string;
  paper?: string;
  landscape?: boolean;
  margin?: string;
  stampImage?: string;
  signCertificate?: string;
}

export interface ConvertFlags extends OperationFlags, RemoteFlags {
  to?: string;
  output?: string;
  option: string[];
  from?: string;
  json?: boolean;
  concurrency: string;
  merge?: boolean;
}

/** What another command sets up around a convert: options under the command line's, its name in messages. */
export interface ConvertSetup {
  /** The command that runs, as messages name it (`convert`). */
  command: string;
  /** Options the command line's own add to or override (a recipe's). */
  options?: Readonly<Record<string, unknown>>;
}

/** The operation flags given, as the options they stand for (checked with every other option). */
function operationOptions(flags: OperationFlags): Record<string, string> {
  const out: Record<string, string> = {};
  if (flags.pages !== undefined) out.pages = flags.pages;
  if (flags.rotate !== undefined) out.rotate = flags.rotate;
  // `--compress` alone is what people mean before mailing a PDF: pictures at 150 dpi.
  if (flags.compress !== undefined) out.compress = flags.compress === true ? 'ebook' : flags.compress;
  if (flags.ocr) out.ocr = 'true';
  if (flags.lang !== undefined) out.lang = flags.lang;
  if (flags.password !== undefined) out.password = flags.password;
  if (flags.paper !== undefined) out.paper = flags.paper;
  if (flags.landscape) out.landscape = 'true';
  if (flags.margin !== undefined) out.margin = flags.margin;
  return out;
}

/**
 * Every option of the run: the setup's (a recipe's), then over them the flags', `-O` pairs, and the
 * stamp picture and the signing certificate read from their files.
 */
export async function commandLineOptions(
  flags: ConvertFlags,
  setup: ConvertSetup,
): Promise<Record<string, unknown>> {
  const options: Record<string, unknown> = {
    ...setup.options,
    ...operationOptions(flags),
    ...parseOptionPairs(flags.option),
  };
  if (flags.stampImage !== undefined) options.stamp_image = await readStampPictureUrl(flags.stampImage);
  if (flags.signCertificate !== undefined)
    options.sign_certificate = await readCertificateUrl(flags.signCertificate);
  return options;
}

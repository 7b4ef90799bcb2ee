import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { StepContext } from '../src/engine/contract.js';
import { defineOption, OPERATION_ORDER, oneOf } from '../src/engine/option-kit.js';
import { FileconvError } from '../src/errors/index.js';
import { findBinary, runProcess } from '../src/run/process.js';
import { popplerTool } from './_pdf.js';

/**
 * PDF/A-2b from Ghostscript's pdfwrite, and the check of what it claims: Ghostscript's exit code
 * does not say whether PDF/A worked (with PDFACompatibilityPolicy=1 it drops what PDF/A forbids,
 * and may give up on PDF/A and still write a file), so the result is read back with qpdf and
 * poppler: the XMP identification (pdfaid:part 2, conformance B), an output intent, every font
 * embedded. No veraPDF runs here (it is not in Debian): this is not a full validation.
 */

export const pdfa = defineOption(
  oneOf(['2b']),
  'make a PDF/A-2b archive copy (Ghostscript), its identification, output intent and fonts checked; not with a password',
  {
    order: OPERATION_ORDER.pdfa,
    excludes: {
      user_password: 'PDF/A forbids encryption',
      // Ghostscript 10.0 discards every DOCINFO pdfmark in PDF/A mode ("cannot be represented in XMP").
      ...Object.fromEntries(
        ['title', 'author', 'subject', 'keywords'].map((k) => [
          k,
          'Ghostscript 10.0 drops document information from PDF/A',
        ]),
      ),
    },
  },
);

/** Document information written by a pdfmark, so Ghostscript puts it in Info and XMP alike. */
export interface DocInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
}

/** A PostScript hex string of UTF-16BE with its byte order mark: no character can end it early. */
function psUnicode(text: string): string {
  const utf16 = Buffer.from(`\ufeff${text}`, 'utf16le').swap16();
  return `<${utf16.toString('hex')}>`;
}

/** A pdfmark setting the document information given, or nothing. */
export function docInfoPdfmark(o: DocInfo): string | undefined {
  const fields = (['title', 'author', 'subject', 'keywords'] as const)
    .filter((k) => o[k] !== undefined)
    .map((k) => `/${k[0]!.toUpperCase()}${k.slice(1)} ${psUnicode(o[k]!)}`);
  return fields.length > 0 ? `[ ${fields.join(' ')} /DOCINFO pdfmark` : undefined;
}

/** A PostScript string literal for `s`. */
export function psString(s: string): string {
  return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** The sRGB profile ghostscript ships, for the PDF/A output intent; from its search path. */
let iccProfile: Promise<string | undefined> | undefined;
function findIccProfile(path: string): Promise<string | undefined> {
  iccProfile ??= execa(path, ['-h'], { reject: false, timeout: 15_000, stdin: 'ignore' }).then((r) => {
    const dirs = String(r.stdout ?? '')
      .split(/\s+:?\s*|\s*:\s+/)
      .filter((d) => d.startsWith('/'));
    for (const dir of dirs) {
      for (const base of [dirname(dir), dirname(dirname(dir))]) {
        const icc = join(base, 'iccprofiles', 'default_rgb.icc');
        if (existsSync(icc)) return icc;
      }
    }
    return undefined;
  });
  return iccProfile;
}

/**
 * PDF/A-2b: pdfwrite's PDF/A mode, colours to RGB, and an sRGB output intent written by a
 * pdfmark prologue (PDF/A wants one; ghostscript does not add it by itself).
 */
export async function pdfaArgs(
  path: string,
  ctx: StepContext,
): Promise<{ args: string[]; prologue?: string }> {
  const args = [
    '-dPDFA=2',
    '-dPDFACompatibilityPolicy=1',
    '-sColorConversionStrategy=RGB',
    '-sDEVICE=pdfwrite',
  ];
  const icc = await findIccProfile(path);
  if (!icc) {
    ctx.log('ghostscript: no sRGB ICC profile found; PDF/A written without an output intent');
    return { args };
  }
  const prologue = join(ctx.workDir, 'pdfa-intent.ps');
  await writeFile(
    prologue,
    [
      '%!',
      '[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark',
      '[{icc_PDFA} << /N 3 >> /PUT pdfmark',
      `[{icc_PDFA} ${psString(icc)} (r) file /PUT pdfmark`,
      '[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark',
      '[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA} /OutputConditionIdentifier (sRGB) /Info (sRGB) >> /PUT pdfmark',
      '[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark',
      '',
    ].join('\n'),
  );
  return { args: [...args, `--permit-file-read=${icc}`], prologue };
}

/** What a PDF/A-2b file must show; each failed point is named. */
export async function pdfaShortcomings(pdf: string, ctx: StepContext): Promise<string[]> {
  const missing: string[] = [];
  const meta = (await runProcess(popplerTool('pdfinfo'), ['-meta', pdf], ctx)).stdout;
  const field = (name: string) =>
    new RegExp(`pdfaid:${name}(?:=["']([^"']*)["']|>([^<]*)<)`)
      .exec(meta)
      ?.slice(1)
      .find((v) => v !== undefined);
  if (field('part') !== '2') missing.push('the XMP does not say pdfaid:part 2');
  if (field('conformance')?.toUpperCase() !== 'B') missing.push('the XMP does not say conformance B');

  const qpdf = findBinary(['qpdf']);
  if (!qpdf) throw new FileconvError('CONVERT_FAILED', 'qpdf is needed to check a PDF/A result.');
  const objects = async (id: string) => {
    const { stdout } = await runProcess(
      qpdf,
      ['--json=2', '--json-key=qpdf', `--json-object=${id}`, pdf],
      ctx,
    );
    return (JSON.parse(stdout) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>] })
      .qpdf[1];
  };
  const root = String((await objects('trailer')).trailer?.value?.['/Root'] ?? '');
  const rootId = /^(\d+) 0 R$/.exec(root)?.[1];
  const catalog = rootId ? (await objects(rootId))[`obj:${root}`]?.value : undefined;
  const intents = catalog?.['/OutputIntents'];
  if (!intents || (Array.isArray(intents) && intents.length === 0)) missing.push('it has no output intent');

  const fonts = (await runProcess(popplerTool('pdffonts'), [pdf], ctx)).stdout.split('\n').slice(2);
  const unembedded = fonts.filter(
    (row) => row.trim() !== '' && / no\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.test(row),
  );
  if (unembedded.length > 0) missing.push(`${unembedded.length} font(s) are not embedded`);
  return missing;
}

/** Throws when the result does not show what PDF/A-2b requires, rather than return a file that claims it. */
export async function assertPdfA(pdf: string, ctx: StepContext): Promise<void> {
  const missing = await pdfaShortcomings(pdf, ctx);
  if (missing.length === 0) {
    ctx.log('PDF/A-2b checked: XMP identification, output intent, embedded fonts (not a full validation)');
    return;
  }
  throw new FileconvError(
    'CONVERT_FAILED',
    `Ghostscript could not make this PDF into PDF/A-2b (${missing.join('; ')}); no file was returned.`,
  );
}

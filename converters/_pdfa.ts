import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { StepContext } from '../src/engine/contract.js';
import { defineOption, OPERATION_ORDER, oneOf } from '../src/engine/option-kit.js';
import { FileconvError } from '../src/errors/index.js';
import { runProcess } from '../src/run/process.js';
import { popplerTool } from './_pdf.js';
import { PDFA_2B_RULES, readPdfaFacts } from './_pdfa-rules.js';

/**
 * PDF/A-2b from Ghostscript's pdfwrite, and the check of what it claims: Ghostscript's exit code
 * does not say whether PDF/A worked (with PDFACompatibilityPolicy=1 it drops what PDF/A forbids,
 * and may give up on PDF/A and still write a file), so the result is read back with qpdf and
 * poppler: the XMP identification (pdfaid:part 2, conformance B), an output intent, every font
 * embedded. No veraPDF runs here (it is not in Debian): this is not a full validation.
 */

export const pdfa = defineOption(
  oneOf(['2b']),
  'make a PDF/A-2b archive copy (Ghostscript; LibreOffice for office documents), its identification, output intent, fonts and document information checked; not with a password',
  { order: OPERATION_ORDER.pdfa, excludes: { user_password: 'PDF/A forbids encryption' } },
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

const INFO_FIELDS = ['title', 'author', 'subject', 'keywords'] as const;

/**
 * Refuses, before the engine runs, document information its PDF/A mode would not carry faithfully
 * into the XMP packet (the check after the run would fail it anyway, later and less clearly).
 */
export function assertDocInfoFits(o: DocInfo, fits: RegExp, why: string): void {
  const other = INFO_FIELDS.find((k) => o[k] !== undefined && !fits.test(o[k]!));
  if (other)
    throw new FileconvError('INVALID_REQUEST', `option ${other} cannot be given with pdfa here: ${why}`);
}

/**
 * Ghostscript 10.0 carries document information into a PDF/A's XMP only as a plain string of
 * printable ASCII without parentheses or backslashes (any escape, a hex or a UTF-16 string make
 * it discard the whole DOCINFO: "cannot be represented in XMP").
 */
const GS_PDFA_TEXT = /^[\x20-\x27\x2a-\x5b\x5d-\x7e]*$/;

/** A pdfmark setting the document information given, or nothing; `archive` for PDF/A (above). */
export function docInfoPdfmark(o: DocInfo, archive = false): string | undefined {
  const fields = INFO_FIELDS.filter((k) => o[k] !== undefined);
  if (archive)
    assertDocInfoFits(
      o,
      GS_PDFA_TEXT,
      'on a PDF, Ghostscript keeps only plain ASCII without parentheses or backslashes in a PDF/A (an office document to PDF/A takes any script)',
    );
  const values = fields.map(
    (k) => `/${k[0]!.toUpperCase()}${k.slice(1)} ${archive ? psString(o[k]!) : psUnicode(o[k]!)}`,
  );
  return values.length > 0 ? `[ ${values.join(' ')} /DOCINFO pdfmark` : undefined;
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

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The text of an XMP property (`dc:title`'s first rdf:li, or `pdf:Keywords` itself), unescaped. */
function xmpText(meta: string, tag: string): string | undefined {
  const element = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(meta)?.[1];
  if (element === undefined) return undefined;
  const text = /<rdf:li[^>]*>([\s\S]*?)<\/rdf:li>/.exec(element)?.[1] ?? element;
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => XML_ENTITIES[e]!).trim();
}

/** Keywords compared as a list: writers join them with "," or ", ". */
const keywordList = (v: string | undefined) =>
  (v ?? '')
    .split(/[,;]/)
    .map((k) => k.trim())
    .filter(Boolean)
    .join(',');

const XMP_OF: Record<(typeof INFO_FIELDS)[number], [string, string]> = {
  title: ['dc:title', 'Title'],
  author: ['dc:creator', 'Author'],
  subject: ['dc:description', 'Subject'],
  keywords: ['pdf:Keywords', 'Keywords'],
};

/** Each field asked, in the Info dictionary and the XMP packet alike (PDF/A wants them to agree). */
async function docInfoShortcomings(pdf: string, meta: string, expected: DocInfo, ctx: StepContext) {
  const asked = INFO_FIELDS.filter((k) => expected[k] !== undefined);
  if (asked.length === 0) return [];
  const info = (await runProcess(popplerTool('pdfinfo'), ['-enc', 'UTF-8', pdf], ctx)).stdout;
  const missing: string[] = [];
  for (const k of asked) {
    const [xmpTag, infoKey] = XMP_OF[k];
    const norm = k === 'keywords' ? keywordList : (v: string | undefined) => v?.trim();
    const want = norm(expected[k]);
    const inInfo = new RegExp(`^${infoKey}:[ \t]*(.*)$`, 'm').exec(info)?.[1];
    if (norm(inInfo) !== want) missing.push(`the document information lacks the ${k} asked`);
    if (norm(xmpText(meta, xmpTag)) !== want) missing.push(`the XMP lacks the ${k} asked`);
  }
  return missing;
}

/** What was checked of a PDF/A-2b file (each rule by name), and each point that fell short. */
export async function checkPdfA(
  pdf: string,
  ctx: StepContext,
  expected: DocInfo = {},
): Promise<{ checked: string[]; missing: string[] }> {
  const facts = await readPdfaFacts(pdf, ctx);
  const missing = await docInfoShortcomings(pdf, facts.meta, expected, ctx);
  const checked = PDFA_2B_RULES.map((r) => r.name);
  if (INFO_FIELDS.some((k) => expected[k] !== undefined))
    checked.push('the document information asked, in the Info dictionary and the XMP alike');
  for (const rule of PDFA_2B_RULES) {
    const short = rule.check(facts);
    if (short) missing.push(short);
  }
  return { checked, missing };
}

/** What a PDF/A-2b file must show; each failed point is named. */
export async function pdfaShortcomings(
  pdf: string,
  ctx: StepContext,
  expected: DocInfo = {},
): Promise<string[]> {
  return (await checkPdfA(pdf, ctx, expected)).missing;
}

/**
 * Throws when the result does not show what PDF/A-2b requires (or lacks the document information
 * asked with it), rather than return a file that claims it.
 */
export async function assertPdfA(
  pdf: string,
  ctx: StepContext,
  engine = 'Ghostscript',
  expected: DocInfo = {},
): Promise<void> {
  const { checked, missing } = await checkPdfA(pdf, ctx, expected);
  if (missing.length === 0) {
    ctx.log(
      `written as PDF/A-2b, checked: ${checked.join('; ')}. Not validated: no full PDF/A validator runs here, so the other rules of ISO 19005-2 (colour spaces, annotations, the XMP schema...) are ${engine}'s word.`,
    );
    return;
  }
  throw new FileconvError(
    'CONVERT_FAILED',
    `${engine} could not make this document into PDF/A-2b (${missing.join('; ')}); no file was returned.`,
  );
}

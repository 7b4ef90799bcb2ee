import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSource, encodingNote } from '../src/detect/text/encoding.js';
import { type ConversionEdge, defineConverter, edgesBetween } from '../src/engine/contract.js';
import { bool, defineOption, type OptionValues, oneOf } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import {
  author,
  keywords,
  landscape,
  margin,
  pages,
  paper,
  password,
  quality,
  sheet,
  subject,
  title,
} from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { fontconfigEnv, OUTLINE_EMOJI } from '../src/fonts/fontconfig.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { assertPdfHeader, isEncryptedPdf } from './_pdf.js';
import { assertDocInfoFits, assertPdfA, type DocInfo, pdfa } from './_pdfa.js';
import { convertThroughPool } from './libreoffice/convert.js';
import { writeWordFriendlyCopy } from './libreoffice/html-word.js';
import { pageSetupFor } from './libreoffice/page-setup.js';
import { writerFromPdf } from './libreoffice/pdf-import.js';
import { officePoolAvailable, officePoolStatus } from './libreoffice/pool.js';
import { PPT_UNLOCK_PACKAGES, pptUnlockStatus, unlockPpt } from './libreoffice/ppt-unlock.js';
import { isPasswordProtected } from './office/encryption.js';
import { createLockedProfile } from './office/profile.js';
import { isWord6Or95, wordFibVersion } from './office/word-version.js';

type Module = 'writer' | 'calc' | 'impress';

// CSV filter options: separator (44 comma, 9 tab), text delimiter 34 ("), charset 76 (UTF-8), first
// line 1; on export the rest asks for quotes only where needed and cells as shown.
const csvOptions = (separator: number) => `${separator},34,76,1,,0,false,true,true,false,false`;

/** Import filters named explicitly, so LibreOffice never falls back to reading a damaged file as text. */
const IMPORT: Record<string, { module: Module; filter: string }> = {
  doc: { module: 'writer', filter: 'MS Word 97' },
  docx: { module: 'writer', filter: 'MS Word 2007 XML' },
  odt: { module: 'writer', filter: 'writer8' },
  rtf: { module: 'writer', filter: 'Rich Text Format' },
  txt: { module: 'writer', filter: 'Text (encoded):UTF8' },
  html: { module: 'writer', filter: 'HTML (StarWriter)' },
  xls: { module: 'calc', filter: 'MS Excel 97' },
  xlsx: { module: 'calc', filter: 'Calc MS Excel 2007 XML' },
  ods: { module: 'calc', filter: 'calc8' },
  csv: { module: 'calc', filter: `Text - txt - csv (StarCalc):${csvOptions(44)}` },
  tsv: { module: 'calc', filter: `Text - txt - csv (StarCalc):${csvOptions(9)}` },
  ppt: { module: 'impress', filter: 'MS PowerPoint 97' },
  pptx: { module: 'impress', filter: 'Impress MS PowerPoint 2007 XML' },
  odp: { module: 'impress', filter: 'impress8' },
};

const EXPORT: Record<Module, Partial<Record<FormatId, string>>> = {
  writer: {
    pdf: 'writer_pdf_Export',
    doc: 'MS Word 97',
    docx: 'MS Word 2007 XML',
    odt: 'writer8',
    rtf: 'Rich Text Format',
    html: 'HTML (StarWriter)',
    txt: 'Text (encoded):UTF8',
  },
  calc: {
    pdf: 'calc_pdf_Export',
    xls: 'MS Excel 97',
    xlsx: 'Calc MS Excel 2007 XML',
    ods: 'calc8',
  },
  impress: {
    pdf: 'impress_pdf_Export',
    ppt: 'MS PowerPoint 97',
    pptx: 'Impress MS PowerPoint 2007 XML',
    odp: 'impress8',
  },
};

/*
 * Lossy rule. Formats get a rank by how much of their family's document model they hold: the full
 * office formats (doc/docx/odt, xls/xlsx/ods, ppt/pptx/odp) 2, rtf and html 1, txt/csv/tsv 0. A
 * step is lossy when the target ranks below the source, or when both are different reduced models
 * (rtf to html). PDF is a faithful rendering of the document, so office to pdf is not lossy.
 */
const RANK: Partial<Record<FormatId, number>> = { rtf: 1, html: 1, txt: 0, csv: 0, tsv: 0 };
const rank = (f: FormatId) => RANK[f] ?? 2;
const isLossy = (from: FormatId, to: FormatId) =>
  to !== 'pdf' && (rank(to) < rank(from) || (rank(to) === 1 && rank(from) === 1));

const COST = 20;

/**
 * PDF is read by the module of the target: Writer's and Impress's PDF import place every page's
 * text, pictures and shapes as positioned frames, so the document keeps its look (pages, pictures,
 * table rules) but not flowing paragraphs. `mode: "text"` skips this step and the planner takes
 * the text path (pdf to txt to the target) instead; `ocr: true` makes the planner prefer a path
 * that reads the pages with OCR. See docs/pdf-to-office.md.
 */
const PDF_IMPORT: Partial<Record<FormatId, { module: Module; filter: string }>> = {
  docx: { module: 'writer', filter: 'writer_pdf_import' },
  odt: { module: 'writer', filter: 'writer_pdf_import' },
  rtf: { module: 'writer', filter: 'writer_pdf_import' },
  pptx: { module: 'impress', filter: 'impress_pdf_import' },
  odp: { module: 'impress', filter: 'impress_pdf_import' },
};

const textWanted = (options: Options) => options.mode === 'text';

// Priced below the text routes (pdf to txt or html, then on), which are as lossy and cheaper to
// run but keep only the words: the layout is the default, the text route is what `mode` asks for.
const PDF_IMPORT_COST = 5;

/**
 * What each edge honours. A PDF's password is qpdf's to take off before the import (LibreOffice
 * loads no encrypted PDF), so the import edges leave it out and the planner puts qpdf first.
 * Page options change the page styles of Writer and Calc documents on their way to PDF; slides
 * keep their own size. One page per sheet and fitting the width are Calc's.
 */
const BASE_OPTIONS = ['pages', 'quality', 'sheet', 'mode'];
const PAGE_OPTIONS = ['paper', 'landscape', 'margin'];
/**
 * What the PDF export itself writes: PDF/A-2b (its own PDF/A mode, checked afterwards as
 * Ghostscript's is) and the document information, set as the document's properties so Info and
 * the XMP packet say the same thing, which is what PDF/A asks of them.
 */
const INFO_OPTIONS = ['title', 'author', 'subject', 'keywords'] as const;
const EXPORT_OPTIONS = ['pdfa', ...INFO_OPTIONS];
const SHEET_PAGE_OPTIONS = ['single_page_sheets', 'fit_width'];

function edgeOptions(from: FormatId, to: FormatId): string[] {
  const module = IMPORT[from]?.module;
  if (!module) return BASE_OPTIONS;
  if (to !== 'pdf') return [...BASE_OPTIONS, 'password'];
  if (module === 'impress') return [...BASE_OPTIONS, 'password', ...EXPORT_OPTIONS];
  return [
    ...BASE_OPTIONS,
    'password',
    ...EXPORT_OPTIONS,
    ...PAGE_OPTIONS,
    ...(module === 'calc' ? SHEET_PAGE_OPTIONS : []),
  ];
}

const PDF_EDGES: ConversionEdge[] = edgesBetween(['pdf'], Object.keys(PDF_IMPORT), (_, to) => ({
  family: 'document',
  lossy: true,
  cost: PDF_IMPORT_COST,
  options: BASE_OPTIONS,
  ...(PDF_IMPORT[to]?.module === 'writer' ? { skipWhen: textWanted } : {}),
}));

/**
 * Writer's HTML import reads a page as a layout to imitate, not as a document: MathML is dropped
 * and notes arrive as links to a list. Priced a step above the other imports, so a source that
 * has another way into Writer (pandoc's ODT from Markdown and the other markup languages, with its
 * math as formula objects Writer saves as Office math) takes that way; a web page still comes in
 * here, having no other.
 */
const HTML_IMPORT_COST = COST + 1;

function familyEdges(
  sources: FormatId[],
  targets: FormatId[],
  family: (from: FormatId) => ConversionEdge['family'],
) {
  return edgesBetween(sources, targets, (from, to) => ({
    family: family(from),
    lossy: isLossy(from, to),
    cost: from === 'html' ? HTML_IMPORT_COST : COST,
    options: edgeOptions(from, to),
  }));
}

const WRITER_FORMATS: FormatId[] = ['doc', 'docx', 'odt', 'rtf', 'txt', 'html'];
const WORKBOOK_FORMATS: FormatId[] = ['xls', 'xlsx', 'ods'];
const CALC_FORMATS: FormatId[] = [...WORKBOOK_FORMATS, 'csv', 'tsv'];
const IMPRESS_FORMATS: FormatId[] = ['ppt', 'pptx', 'odp'];

/**
 * Opening a protected document with its password and saving it without one: the office formats
 * to themselves (`docx-docx` with `password`), and the step the planner puts first when another
 * engine converts on (a protected xlsx to csv through the data engine).
 */
const MODULE_FAMILY: Record<Module, ConversionEdge['family']> = {
  writer: 'document',
  calc: 'spreadsheet',
  impress: 'presentation',
};
const UNLOCK_EDGES: ConversionEdge[] = (
  ['doc', 'docx', 'odt', ...WORKBOOK_FORMATS, ...IMPRESS_FORMATS] as const
).map((f) => ({
  from: f,
  to: f,
  family: MODULE_FAMILY[IMPORT[f]?.module ?? 'writer'],
  lossy: false,
  cost: COST,
  options: ['password'],
}));

/**
 * Variants of the office formats that LibreOffice both reads and writes: the macro-enabled OOXML
 * documents and the flat (single XML file) ODF ones. Each converts to PDF and to its OOXML and ODF
 * counterparts, and is made from the format it varies (which is how the self-test gets a sample).
 */
const VARIANTS: Record<string, { base: FormatId; module: Module; filter: string; write?: string }> = {
  docm: { base: 'docx', module: 'writer', filter: 'MS Word 2007 XML', write: 'MS Word 2007 XML VBA' },
  xlsm: {
    base: 'xlsx',
    module: 'calc',
    filter: 'Calc MS Excel 2007 XML',
    write: 'Calc MS Excel 2007 VBA XML',
  },
  pptm: {
    base: 'pptx',
    module: 'impress',
    filter: 'Impress MS PowerPoint 2007 XML',
    write: 'Impress MS PowerPoint 2007 XML VBA',
  },
  fodt: { base: 'odt', module: 'writer', filter: 'OpenDocument Text Flat XML' },
  fods: { base: 'ods', module: 'calc', filter: 'OpenDocument Spreadsheet Flat XML' },
  fodp: { base: 'odp', module: 'impress', filter: 'OpenDocument Presentation Flat XML' },
};
const COUNTERPARTS: Record<Module, FormatId[]> = {
  writer: ['pdf', 'docx', 'odt'],
  calc: ['pdf', 'xlsx', 'ods'],
  impress: ['pdf', 'pptx', 'odp'],
};
for (const [id, v] of Object.entries(VARIANTS)) {
  IMPORT[id] = { module: v.module, filter: v.filter };
  EXPORT[v.module][id] = v.write ?? v.filter;
}
const VARIANT_EDGES: ConversionEdge[] = Object.entries(VARIANTS).flatMap(([id, v]) => [
  ...familyEdges([id], COUNTERPARTS[v.module], () => MODULE_FAMILY[v.module]),
  // Saving a file as its variant is wanted from that file only, not at the end of a chain.
  ...familyEdges([v.base], [id], () => MODULE_FAMILY[v.module]).map((e) => ({ ...e, alone: true as const })),
]);

/**
 * Versions detection names (src/detect/ole.ts) that LibreOffice's import filters do not open.
 * Word 6.0/95 and Excel's BIFF2 to BIFF5 it does; PowerPoint 4.0 kept its slides in a `PP40`
 * stream that its PowerPoint filter, written for the 97 format, does not read.
 */
const UNREAD_VERSIONS: Partial<Record<FormatId, Readonly<Record<string, string>>>> = {
  ppt: { 'PowerPoint 4.0': "LibreOffice's PowerPoint import reads PowerPoint 97 and later" },
};

const EDGES: ConversionEdge[] = [
  ...familyEdges(WRITER_FORMATS, [...WRITER_FORMATS, 'pdf'], (from) =>
    from === 'txt' ? 'text' : 'document',
  ),
  // A workbook becomes one table through xlsx and the data engine, which picks the sheet (the
  // first with data, or options.sheet): LibreOffice's CSV export takes the first sheet, empty or not.
  ...familyEdges(CALC_FORMATS, [...WORKBOOK_FORMATS, 'pdf'], () => 'spreadsheet'),
  ...familyEdges(IMPRESS_FORMATS, [...IMPRESS_FORMATS, 'pdf'], () => 'presentation'),
  ...PDF_EDGES,
  ...UNLOCK_EDGES,
  ...VARIANT_EDGES,
].map((e) => (UNREAD_VERSIONS[e.from] ? { ...e, unreadVersions: UNREAD_VERSIONS[e.from] } : e));

/** The document information asked, or undefined. */
function docInfoOf(options: Options): DocInfo | undefined {
  const info = Object.fromEntries(
    INFO_OPTIONS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]),
  );
  return Object.keys(info).length > 0 ? info : undefined;
}

/** PDF export options LibreOffice takes as JSON after the filter name (7.4 and later). */
function pdfExportOptions(options: Options): string {
  const props: Record<string, { type: string; value: string }> = {};
  if (options.pages) props.PageRange = { type: 'string', value: options.pages };
  if (options.quality) props.Quality = { type: 'long', value: String(options.quality) };
  if (options.pdfa) props.SelectPdfVersion = { type: 'long', value: '2' };
  return Object.keys(props).length ? `:${JSON.stringify(props)}` : '';
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

async function stripBom(path: string): Promise<void> {
  const bytes = await readFile(path);
  if (bytes.subarray(0, 3).equals(UTF8_BOM)) await writeFile(path, bytes.subarray(3));
}

/**
 * The text import is told UTF-8 (a filter cannot sniff), so UTF-16, UTF-32 and windows-1252 text
 * is handed over re-encoded, as pandoc and the PDF route get it.
 */
async function writeUtf8Copy(input: string, copy: string, log: (m: string) => void): Promise<void> {
  const bytes = await readFile(input);
  const found = decodeSource(bytes, 'txt');
  const { text, encoding } = found;
  if (encoding === 'UTF-8') return copyFile(input, copy);
  log(encodingNote(found));
  await writeFile(copy, text);
}

const OPTIONS = {
  pages,
  quality,
  sheet,
  mode: defineOption(
    oneOf(['layout', 'text']),
    'pdf to docx/odt/rtf: layout (pages, pictures, positions) or text (flowing paragraphs)',
  ),
  password,
  paper,
  landscape,
  margin,
  single_page_sheets: defineOption(
    bool(),
    'spreadsheet to PDF: each sheet on one page, as large as it needs',
  ),
  fit_width: defineOption(
    bool(),
    'spreadsheet to PDF: each sheet scaled to the width of the page, as many pages tall as it needs',
  ),
  pdfa,
  title,
  author,
  subject,
  keywords,
};
type Options = OptionValues<typeof OPTIONS>;

/** What doctor and `--warm` say when the office pool cannot start. */
const poolUnavailable = (reason: string | undefined) =>
  `warm pool unavailable (${reason}); conversions use one-shot soffice`;

export default defineConverter({
  name: 'libreoffice',
  description: 'LibreOffice headless: word processing, spreadsheet and presentation files, and PDF export',
  // python3-uno drives the warm instances; fonts so documents render their text without recommends.
  packages: [
    'libreoffice-writer',
    'libreoffice-calc',
    'libreoffice-impress',
    'python3-uno',
    'fonts-dejavu-core',
    // pdftotext: a PDF too long for the layout import becomes a document from its text;
    // pdfinfo, pdffonts and qpdf read back what a PDF/A export claims.
    'poppler-utils',
    'qpdf',
    // Apache POI decrypts a password-protected PPT, which LibreOffice cannot (libreoffice/ppt-unlock.ts).
    ...PPT_UNLOCK_PACKAGES,
  ],
  edges: EDGES,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(['soffice', 'libreoffice'], ['--version'], /LibreOffice (\d[\d.]*)/),
  async diagnose() {
    const pool = await officePoolAvailable();
    if (!pool.ok) return [poolUnavailable(pool.reason), pptUnlockStatus()];
    const status = officePoolStatus();
    return [
      `warm pool: ${status.size} instance(s), restart after ${status.maxConversions} conversions`,
      pptUnlockStatus(),
    ];
  },
  async warm() {
    const pool = await officePoolAvailable();
    if (!pool.ok) throw new Error(poolUnavailable(pool.reason));
  },
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const soffice = findBinary(['soffice', 'libreoffice']);
    if (!soffice) throw new FileconvError('CONVERT_FAILED', 'LibreOffice (soffice) is not installed.');
    const pdfImport = edge.from === 'pdf';
    const source = pdfImport ? PDF_IMPORT[edge.to] : IMPORT[edge.from];
    const exportFilter = source && EXPORT[source.module][edge.to];
    if (!source || !exportFilter)
      throw new FileconvError('CONVERT_FAILED', `LibreOffice cannot convert ${edge.from} to ${edge.to}.`);
    if (pdfImport) {
      await assertPdfHeader(input);
      // LibreOffice's PDF import loads no encrypted PDF, not even one locked by an owner password only.
      if (await isEncryptedPdf(input)) throw new FileconvError('ENCRYPTED_DOCUMENT');
      ctx.log(`pdf ${source.module} import, layout mode: pages as placed text frames, pictures and shapes`);
    }
    const locked = !pdfImport && (await isPasswordProtected(input));
    if (locked && options.password === undefined) throw new FileconvError('ENCRYPTED_DOCUMENT');
    if (locked) ctx.log('password-protected document: opened with the password given');
    // LibreOffice opens no encrypted PPT: the deck it is given is POI's unencrypted copy.
    const pptCopy =
      locked && edge.from === 'ppt' && options.password !== undefined
        ? await unlockPpt(input, options.password, ctx)
        : undefined;
    const encrypted = locked && !pptCopy;
    const pageSetup = edge.to === 'pdf' && !pdfImport ? pageSetupFor(edge.from, options) : undefined;
    const docInfo = edge.to === 'pdf' && !pdfImport ? docInfoOf(options) : undefined;
    if (docInfo && options.pdfa)
      assertDocInfoFits(
        docInfo,
        /^[^<>&"']*$/,
        `LibreOffice 7.4 escapes < > & " ' twice in a PDF/A's XMP, which then contradicts its document information`,
      );
    // Ghostscript's PDF/A mode is refused the same way: a result that falls short is no PDF/A.
    const finish = async (pdf: string) => {
      if (edge.to === 'pdf' && options.pdfa) await assertPdfA(pdf, ctx, 'LibreOffice', docInfo);
    };

    const importFilter =
      edge.from === 'doc' && isWord6Or95(await wordFibVersion(input)) ? 'MS WinWord 6.0' : source.filter;
    if (importFilter !== source.filter) ctx.log(`Word 6/95 document: import filter ${importFilter}`);
    // LibreOffice names the output after the input, and picks behaviour by extension too.
    const named = join(ctx.workDir, `input.${extensionOf(edge.from)}`);
    if (edge.from === 'txt') await writeUtf8Copy(input, named, ctx.log);
    else if (edge.from === 'html' && source.module === 'writer' && edge.to !== 'pdf')
      await writeWordFriendlyCopy(input, named);
    else await copyFile(pptCopy ?? input, named);
    const pooledOutput = join(outDir, `output.${extensionOf(edge.to)}`);
    const pooled = {
      input: named,
      output: pooledOutput,
      importFilter,
      exportFilter,
      pdfPages: pdfImport && source.module === 'writer',
      ...(encrypted ? { encrypted, password: options.password } : {}),
      pageSetup,
      docInfo,
    };
    const converted = pooled.pdfPages
      ? await writerFromPdf(pooled, named, ctx)
      : await convertThroughPool({ ...pooled, pdfOptions: edge.to === 'pdf' ? options : undefined }, ctx);
    if (converted) {
      if (edge.to === 'txt') await stripBom(pooledOutput);
      await finish(pooledOutput);
      ctx.progress(1);
      return { files: [pooledOutput] };
    }
    // soffice --convert-to would take a password on its command line, and sets no page style
    // and no document property.
    const pageOptions =
      PAGE_OPTIONS.some((name) => name in options) ||
      options.fit_width !== undefined ||
      docInfo !== undefined;
    if (encrypted || pageOptions)
      throw new FileconvError(
        'CONVERT_FAILED',
        `${encrypted ? 'A password-protected document' : 'Page options and document information'} need LibreOffice's warm pool (python3-uno), which is unavailable here.`,
      );
    const profile = await createLockedProfile(join(ctx.workDir, 'profile'));
    const sofficeOut = join(ctx.workDir, 'out');
    await mkdir(sofficeOut, { recursive: true });
    const target = `${extensionOf(edge.to)}:${exportFilter}${edge.to === 'pdf' ? pdfExportOptions(options) : ''}`;
    ctx.progress(0.05);
    ctx.log(`libreoffice ${importFilter} -> ${exportFilter}`);
    const { stderr } = await runProcess(
      soffice,
      [
        '--headless',
        '--norestore',
        '--nologo',
        '--nodefault',
        '--nolockcheck',
        `-env:UserInstallation=${profile}`,
        `--infilter=${importFilter}`,
        '--convert-to',
        target,
        '--outdir',
        sofficeOut,
        named,
      ],
      ctx,
      { env: fontconfigEnv(OUTLINE_EMOJI) },
    );
    const produced = (await readdir(sofficeOut)).find((f) => f.startsWith('input.'));
    // soffice exits 0 even when it could not open the input; the missing output tells.
    if (!produced || (await stat(join(sofficeOut, produced))).size === 0) {
      if (/could not be loaded/i.test(stderr)) throw new FileconvError('MALFORMED_DOCUMENT');
      throw new FileconvError('CONVERT_FAILED', `LibreOffice wrote no output: ${stderr.trim().slice(-300)}`);
    }
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    await copyFile(join(sofficeOut, produced), output);
    if (edge.to === 'txt') await stripBom(output);
    await finish(output);
    ctx.progress(1);
    return { files: [output] };
  },
});

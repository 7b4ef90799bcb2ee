import { copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ConversionEdge,
  defineConverter,
  type MergeRequest,
  type StepContext,
  type StepResult,
} from '../src/engine/contract.js';
import {
  bool,
  defineOption,
  int,
  OPERATION_ORDER,
  type OptionValues,
  oneOfNumbers,
} from '../src/engine/option-kit.js';
import { optionsFor, pagesMade } from '../src/engine/options.js';
import {
  compress,
  keepActiveContent,
  PASSWORD,
  pages,
  password,
  wantsLossyCompression,
} from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { mapLimit } from '../src/run/concurrency.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { keepSmaller } from './_compress.js';
import { assertPdfHeader, isEncryptedPdf } from './_pdf.js';
import { withoutActiveContent } from './_pdf-active.js';
import { type MergedInput, readInput, writeOutline } from './_pdf-merge.js';
import { METADATA_OPTIONS, metadataUpdate, wantsMetadata } from './_pdf-metadata.js';
import { repairPdf } from './_pdf-repair.js';
import { drawOverlay, STAMP_OPTIONS, wantsOverlay } from './_pdf-stamp.js';
import { checkPagesExist, type QpdfSecrets, qpdfPageCount, runQpdf } from './_qpdf-run.js';

/**
 * PDF operations that keep the format: pages kept or split into parts, watermarks, stamps and page
 * numbers, rotation, passwords set or removed, flattened forms, lossless compression, document
 * information and fast web view. One qpdf run does them all in the order readers expect (pages,
 * what is drawn over them, rotation, flattening, compression, metadata, linearising, encryption
 * last); what is drawn over the pages is drawn first, as an overlay PDF (_pdf-stamp.ts). Arguments and
 * passwords reach qpdf in files of the step's own folder (_qpdf-run.ts), never on its command line.
 */

const SECRET = { secret: true };
const ENCRYPT = { order: OPERATION_ORDER.encrypt };

const OPTIONS = {
  pages,
  rotate: defineOption(oneOfNumbers([90, 180, 270]), 'turn the pages clockwise by this many degrees', {
    order: OPERATION_ORDER.rotate,
  }),
  split: defineOption(int(1, 10_000), 'split into parts of this many pages (several files and a ZIP)', {
    splits: true,
    order: OPERATION_ORDER.split,
  }),
  password,
  user_password: defineOption(PASSWORD, 'protect the PDF: the password that opens it (AES-256)', {
    ...SECRET,
    ...ENCRYPT,
  }),
  owner_password: defineOption(
    PASSWORD,
    'protect the PDF: the password that lifts its restrictions (default: a random one)',
    { ...SECRET, ...ENCRYPT },
  ),
  allow_print: defineOption(bool(), 'with user_password: allow printing (default true)', ENCRYPT),
  allow_copy: defineOption(
    bool(),
    'with user_password: allow copying text and images (default true)',
    ENCRYPT,
  ),
  allow_modify: defineOption(
    bool(),
    'with user_password: allow changes and annotations (default true)',
    ENCRYPT,
  ),
  linearize: defineOption(bool(), 'optimise for fast web view (page by page while downloading)', {
    order: OPERATION_ORDER.linearize,
  }),
  compress,
  flatten: defineOption(bool(), 'draw form fields and annotations into the page content', {
    order: OPERATION_ORDER.flatten,
  }),
  bookmarks: defineOption(
    bool(),
    'merging several inputs: one bookmark per input, its own bookmarks under it (default true)',
  ),
  keep_active_content: keepActiveContent,
  ...STAMP_OPTIONS,
  ...METADATA_OPTIONS,
};
type Options = OptionValues<typeof OPTIONS>;

/** Options of the merge alone: a single PDF has no inputs to mark. */
const MERGE_OPTIONS: readonly string[] = ['bookmarks', 'keep_active_content'];

// Lossy compression resamples pictures and OCR reads pages: Ghostscript's and OCRmyPDF's pdf-pdf steps.
const edges: ConversionEdge[] = [
  {
    from: 'pdf',
    to: 'pdf',
    family: 'document',
    lossy: false,
    cost: 3,
    skipWhen: (o) => wantsLossyCompression(o) || o.ocr === true,
    options: Object.keys(OPTIONS).filter((n) => n !== 'bookmarks'),
  },
];

/** Parts one split may make: each is an artifact and a ZIP entry. */
export const MAX_SPLIT_PARTS = 1_000;

/** Files made before the run: the overlay drawn over the pages, the metadata update. */
interface Prepared {
  overlay?: string;
  metadata?: string;
}

/** The passwords of one qpdf run: the one that opens the input, the ones that protect the output. */
function qpdfSecrets(o: Options, ownerPassword: string): QpdfSecrets {
  if (o.user_password === undefined) return { password: o.password };
  const encrypt = {
    user: o.user_password,
    owner: ownerPassword,
    print: o.allow_print !== false,
    copy: o.allow_copy !== false,
    modify: o.allow_modify !== false,
  };
  return { password: o.password, encrypt };
}

/** The argument lines of one qpdf run; the passwords go in its job JSON (qpdfSecrets). */
function qpdfArguments(input: string, output: string, o: Options, made: Prepared): string[] {
  const args: string[] = [input];
  if (o.pages) args.push('--pages', '.', o.pages.replaceAll(' ', ''), '--');
  if (made.overlay) args.push('--overlay', made.overlay, '--');
  if (made.metadata) args.push(`--update-from-json=${made.metadata}`);
  if (o.rotate) args.push(`--rotate=+${o.rotate}`);
  if (o.flatten) args.push('--generate-appearances', '--flatten-annotations=all');
  if (o.compress === 'lossless')
    args.push('--recompress-flate', '--compression-level=9', '--object-streams=generate');
  // Every part keeps only what its pages use, or a two-page extract carries the whole file's images.
  if (o.pages || o.split) args.push('--remove-unreferenced-resources=yes');
  if (o.linearize) args.push('--linearize');
  if (o.password !== undefined && o.user_password === undefined) args.push('--decrypt');
  if (o.split) args.push(`--split-pages=${o.split}`);
  args.push(output);
  return args;
}

/**
 * Refuses pages the document does not have and a split into more parts than a request may hold,
 * before anything is written.
 */
async function checkPages(qpdf: string, input: string, o: Options, ctx: StepContext): Promise<void> {
  if (!o.split && !o.pages) return;
  const count = await qpdfPageCount(qpdf, input, ctx, o.password);
  checkPagesExist(o.pages, count);
  if (!o.split) return;
  // Parts are counted as qpdf makes them: a page named twice is written twice (`1,1,1...` with
  // split 1 made a part per mention, 3,001 from a one-page PDF, when distinct pages were counted).
  const pagesKept = pagesMade(o.pages, count);
  const parts = Math.ceil(pagesKept / o.split);
  if (parts > MAX_SPLIT_PARTS) {
    throw new FileconvError(
      'OUTPUT_TOO_LARGE',
      `Splitting ${pagesKept} pages into parts of ${o.split} would make ${parts} files; at most ${MAX_SPLIT_PARTS} are made (split into larger parts, or choose pages).`,
    );
  }
}

/**
 * What is drawn over the pages is drawn for the pages as they come out: when pages are chosen or
 * the PDF must be opened, a first run writes those pages, opened, and the rest works on them.
 * Then the overlay and the metadata update are made for that file.
 */
async function prepare(
  qpdf: string,
  input: string,
  o: Options,
  ctx: StepContext,
): Promise<{ source: string; rest: Options; made: Prepared }> {
  let source = input;
  let rest = o;
  const made: Prepared = {};
  if (wantsOverlay(o) && (o.pages || o.password !== undefined)) {
    source = join(ctx.workDir, 'pages.pdf');
    const { pages, password, ...others } = o;
    await runQpdf(qpdf, qpdfArguments(input, source, { pages, password }, {}), ctx, { password });
    rest = others;
  }
  if (wantsOverlay(rest)) made.overlay = await drawOverlay(source, rest, ctx);
  if (wantsMetadata(rest)) {
    made.metadata = await metadataUpdate(
      rest,
      async (ids) => {
        const out = await runQpdf(
          qpdf,
          ['--json=2', '--json-key=qpdf', ...ids.map((id) => `--json-object=${id}`), source],
          ctx,
          { password: rest.password },
        );
        const json = JSON.parse(out) as {
          qpdf: [Record<string, unknown>, Record<string, { value?: unknown }>];
        };
        return { header: json.qpdf[0], objects: json.qpdf[1] };
      },
      ctx,
    );
  }
  return { source, rest, made };
}

/** Compression was all that was asked: a result no smaller than the input is worth nothing. */
function onlyCompression(o: Options): boolean {
  const { compress, keep_active_content, ...others } = o;
  return compress !== undefined && Object.values(others).every((v) => v === undefined);
}

/** The parts qpdf wrote for `--split-pages` (named by their first page, zero-padded), in page order. */
async function splitParts(outDir: string): Promise<string[]> {
  const names = (await readdir(outDir)).filter((n) => n.endsWith('.pdf')).sort();
  return names.map((n) => join(outDir, n));
}

/** ENCRYPTED_DOCUMENT for a PDF that needs a password to open (owner-only restrictions open without). */
async function refuseLocked(qpdf: string, input: string, ctx: StepContext): Promise<void> {
  if (!(await isEncryptedPdf(input))) return;
  const probe = await runProcess(qpdf, ['--requires-password', input], ctx).then(
    () => 0,
    (e: unknown) => (e instanceof EngineProcessError ? e.exitCode : undefined),
  );
  if (probe === 0) throw new FileconvError('ENCRYPTED_DOCUMENT');
}

/**
 * A merge's input as the merge will read it: a PDF, open without a password, with pages. Run on
 * every PDF input before any input is converted, so a damaged last input fails the merge at once.
 */
async function checkMergeInput(path: string, ctx: StepContext): Promise<void> {
  const qpdf = qpdfBinary();
  await assertPdfHeader(path);
  await refuseLocked(qpdf, path, ctx);
  const pages = await qpdfPageCount(qpdf, path, ctx);
  if (!(pages > 0)) throw new FileconvError('MALFORMED_DOCUMENT', 'The PDF has no pages.');
}

/** Inputs of a merge read at once (page counts and outlines, one qpdf process each). */
const READS_AT_ONCE = 4;

/** qpdf, or CONVERT_FAILED when it is not installed. */
function qpdfBinary(): string {
  const qpdf = findBinary(['qpdf']);
  if (!qpdf) throw new FileconvError('CONVERT_FAILED', 'qpdf is not installed.');
  return qpdf;
}

/**
 * Joins PDFs in order: `qpdf --empty --pages a.pdf b.pdf --`, which keeps every input's pages,
 * annotations and form fields (fields sharing a name are renamed), with object streams so the
 * merge is no larger than its inputs; then the outline (converters/_pdf-merge.ts).
 */
async function mergePdfs(request: MergeRequest, ctx: StepContext): Promise<StepResult> {
  const qpdf = qpdfBinary();
  const run = (args: readonly string[], c: StepContext) => runQpdf(qpdf, args, c);
  const writeArgs = ['--object-streams=generate', '--compression-level=9'];
  // Each input read on its own first, so a damaged or locked one is named (extra.input, from 1).
  // A few at once: each read is a process of its own, whose start is most of its time.
  let read = 0;
  const inputs: MergedInput[] = await mapLimit(
    [...request.inputs.entries()],
    READS_AT_ONCE,
    async ([i, input]) => {
      try {
        await assertPdfHeader(input.path);
        await refuseLocked(qpdf, input.path, ctx);
        const found = await readInput(run, input.path, input.title, ctx);
        ctx.progress((0.3 * ++read) / request.inputs.length);
        return found;
      } catch (e) {
        if (!(e instanceof FileconvError)) throw e;
        throw new FileconvError(e.code, e.message, { cause: e, extra: { input: i + 1 } });
      }
    },
  );
  const pages = request.inputs.flatMap((i) => [i.path, '1-z']);
  const output = join(request.outDir, 'merged.pdf');
  const joined = join(ctx.workDir, 'joined.pdf');
  await run(['--empty', '--pages', ...pages, '--', ...writeArgs, joined], ctx);
  // qpdf keeps every page's actions and links, a Launch among them: dropped unless asked to keep.
  const clean = await withoutActiveContent(joined, request.options, ctx);
  ctx.progress(0.7);
  if (request.options.bookmarks !== false) await writeOutline(run, clean, output, inputs, ctx, writeArgs);
  else await copyFile(clean, output);
  return { files: [output] };
}

export default defineConverter({
  name: 'qpdf',
  description:
    'qpdf: PDF operations that keep the format (pages, split, rotate, protect and unlock, flatten, lossless compression, fast web view, stamps, page numbers, document information), merges of several PDFs, and repair of damaged PDFs (with Ghostscript and MuPDF)',
  packages: ['qpdf', 'librsvg2-bin', 'poppler-utils', 'fonts-dejavu-core', 'ghostscript', 'mupdf-tools'],
  edges,
  options: OPTIONS,
  merge: { format: 'pdf', options: MERGE_OPTIONS, run: mergePdfs, check: checkMergeInput },
  // A damaged PDF every engine refused: qpdf's recovery, then Ghostscript's, then MuPDF's.
  repair: { format: 'pdf', run: repairPdf },
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(['qpdf'], ['--version'], /qpdf version (\d+\.\d+(?:\.\d+)?)/),
  async run({ input, outDir, options: given }, ctx) {
    const o = optionsFor(OPTIONS, given);
    const qpdf = qpdfBinary();
    await assertPdfHeader(input);
    if (o.password === undefined) await refuseLocked(qpdf, input, ctx);
    const output = join(outDir, o.split ? 'part.pdf' : 'output.pdf');
    const ownerPassword =
      o.owner_password && o.owner_password !== o.user_password
        ? o.owner_password
        : crypto.randomUUID().replaceAll('-', '');
    await checkPages(qpdf, input, o, ctx);
    const clean = await withoutActiveContent(input, o, ctx);
    const { source, rest, made } = await prepare(qpdf, clean, o, ctx);
    await runQpdf(qpdf, qpdfArguments(source, output, rest, made), ctx, qpdfSecrets(rest, ownerPassword));
    if (o.split) return { files: await splitParts(outDir) };
    if (o.compress) await keepSmaller(clean, output, ctx, onlyCompression(o));
    return { files: [output] };
  },
});

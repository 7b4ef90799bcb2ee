import { open, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ConversionEdge, defineConverter, type StepContext } from '../src/engine/contract.js';
import type { OptionValues } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import {
  author,
  compress,
  dpi,
  keepActiveContent,
  keywords,
  pages,
  quality,
  subject,
  title,
  wantsLossyCompression,
} from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import type { FormatId } from '../src/formats/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { keepSmaller } from './_compress.js';
import {
  assertPdfHeader,
  checkRasterLimits,
  DEFAULT_DPI,
  type PageSize,
  pageFilesInOrder,
  selectPages,
} from './_pdf.js';
import { withoutActiveContent } from './_pdf-active.js';
import { greyscale, greyscaleArgs } from './_pdf-greyscale.js';
import { assertPdfA, docInfoPdfmark, pdfa, pdfaArgs, psString } from './_pdfa.js';

const BINARY = ['gs'];
/** Every run: no file access beyond the named files, no prompts, quiet. */
const BASE_ARGS = ['-dSAFER', '-dBATCH', '-dNOPAUSE', '-dNOPROMPT', '-q'];
const RASTER_ARGS = ['-dTextAlphaBits=4', '-dGraphicsAlphaBits=4'];

const RASTER = ['dpi', 'pages', 'quality'];
const INFO = ['title', 'author', 'subject', 'keywords'];

const edges: ConversionEdge[] = [
  {
    from: 'pdf',
    to: 'pdfa',
    family: 'document',
    lossy: false,
    cost: 10,
    options: ['pages', 'keep_active_content', ...INFO],
  },
  // Lossy compression, greyscale and PDF/A only: the operations that keep pictures as they are belong to qpdf.
  {
    from: 'pdf',
    to: 'pdf',
    family: 'document',
    lossy: true,
    cost: 10,
    options: ['compress', 'pages', 'pdfa', 'greyscale', 'keep_active_content', ...INFO],
    skipWhen: (o) => !wantsLossyCompression(o) && o.pdfa === undefined && o.greyscale === undefined,
  },
  { from: 'ps', to: 'pdf', family: 'document', lossy: false, cost: 8, options: [] },
  { from: 'eps', to: 'pdf', family: 'image', lossy: false, cost: 8, options: [] },
  { from: 'pdf', to: 'ps', family: 'document', lossy: false, cost: 8, options: ['pages'] },
  { from: 'eps', to: 'png', family: 'image', lossy: true, cost: 8, options: ['dpi'] },
  // Fallbacks for poppler's page rendering.
  { from: 'pdf', to: 'png', family: 'document', lossy: true, cost: 14, multiOutput: true, options: RASTER },
  { from: 'pdf', to: 'jpg', family: 'document', lossy: true, cost: 14, multiOutput: true, options: RASTER },
];

/**
 * pdfwrite with a preset's picture resolution; JPEGs pass through as they are (recompressing a
 * JPEG loses quality for little gain), repeated pictures are stored once.
 */
function compressionArgs(o: Options): string[] {
  if (!wantsLossyCompression(o)) return [];
  return [
    '-sDEVICE=pdfwrite',
    `-dPDFSETTINGS=/${o.compress}`,
    '-dPassThroughJPEGImages=true',
    '-dDetectDuplicateImages=true',
    '-dCompatibilityLevel=1.5',
  ];
}

const probeGs = () => probeBinary(BINARY, ['--version'], /^(\d+\.\d+(?:\.\d+)?)/);

/** Checks the first bytes: PostScript sources must be PostScript, EPS may have the DOS binary header. */
async function assertHeader(input: string, from: FormatId): Promise<void> {
  if (from === 'pdf') return assertPdfHeader(input);
  const file = await open(input, 'r');
  try {
    const buf = Buffer.alloc(4);
    await file.read(buf, 0, 4, 0);
    const dosEps = buf.equals(Buffer.from([0xc5, 0xd0, 0xd3, 0xc6]));
    if (!dosEps && buf.subarray(0, 2).toString('latin1') !== '%!') {
      throw new FileconvError(
        'MALFORMED_DOCUMENT',
        `The file does not start like ${from === 'eps' ? 'EPS' : 'PostScript'}.`,
      );
    }
  } finally {
    await file.close();
  }
}

function classify(output: string, cause?: unknown): FileconvError | undefined {
  if (/requires a password|password/i.test(output))
    return new FileconvError('ENCRYPTED_DOCUMENT', undefined, { cause });
  if (
    /Couldn't initialise file|Error: \/(undefined|syntaxerror|ioerror|typecheck|rangecheck)|Unrecoverable error|no pages|damaged/i.test(
      output,
    )
  ) {
    return new FileconvError('MALFORMED_DOCUMENT', 'Ghostscript could not read the file.', { cause });
  }
  return undefined;
}

async function gs(path: string, args: string[], ctx: StepContext, cwd?: string) {
  try {
    return await runProcess(path, [...BASE_ARGS, ...args], ctx, { cwd });
  } catch (e) {
    throw e instanceof EngineProcessError ? (classify(e.output, e) ?? e) : e;
  }
}

/**
 * Page count and MediaBox sizes of a PDF, read by ghostscript itself (this engine does not lean
 * on poppler). -dSAFER stays on; only the input may be read.
 */
async function pdfPages(
  path: string,
  input: string,
  ctx: StepContext,
): Promise<{ count: number; sizes: PageSize[] }> {
  const program = `${psString(input)} (r) file runpdfbegin pdfpagecount dup = 2000 le { 1 1 pdfpagecount { pdfgetpage /MediaBox pget { ==only } { ([0 0 0 0]) print } ifelse ( ) = } for } if quit`;
  const { stdout, stderr } = await gs(
    path,
    ['-dNODISPLAY', `--permit-file-read=${input}`, '-c', program],
    ctx,
  );
  const failure = classify(stderr + stdout);
  const count = Number(/^(\d+)\s*$/m.exec(stdout)?.[1] ?? 0);
  if (count < 1) throw failure ?? new FileconvError('MALFORMED_DOCUMENT', 'The PDF has no pages.');
  const sizes = [...stdout.matchAll(/^\[([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)\]/gm)].map((m, i) => ({
    page: i + 1,
    width: Math.abs(Number(m[3]) - Number(m[1])),
    height: Math.abs(Number(m[4]) - Number(m[2])),
  }));
  return { count, sizes };
}

function rasterDevice(to: FormatId, options: Options): string[] {
  const dpi = `-r${options.dpi ?? DEFAULT_DPI}`;
  if (to === 'jpg') return ['-sDEVICE=jpeg', `-dJPEGQ=${options.quality ?? 85}`, dpi, ...RASTER_ARGS];
  return ['-sDEVICE=png16m', dpi, ...RASTER_ARGS];
}

async function nonEmpty(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.size > 0,
    () => false,
  );
}

const OPTIONS = {
  keep_active_content: keepActiveContent,
  dpi,
  pages,
  quality,
  compress,
  pdfa,
  greyscale,
  title,
  author,
  subject,
  keywords,
};
type Options = OptionValues<typeof OPTIONS>;

export default defineConverter({
  name: 'ghostscript',
  description:
    'Ghostscript (-dSAFER): PDF/A-2b (checked), lossy PDF compression, greyscale PDFs, PostScript and EPS to PDF, PDF to PostScript, page images',
  packages: ['ghostscript', 'qpdf', 'poppler-utils'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 300_000,
  probe: probeGs,
  async run({ edge, input: given_input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const path = findBinary(BINARY);
    if (!path) throw new FileconvError('CONVERT_FAILED', 'gs (ghostscript) not found on PATH');
    await assertHeader(given_input, edge.from);
    // Ghostscript keeps links' actions (a Launch among them): a PDF it rewrites loses them first.
    const rewrites = edge.from === 'pdf' && (edge.to === 'pdf' || edge.to === 'pdfa');
    const input = rewrites ? await withoutActiveContent(given_input, options, ctx) : given_input;
    // A name of our own for the input: ghostscript's --permit-file-read and PostScript strings
    // get a plain path, whatever the caller's file was called.
    const source = join(ctx.workDir, `input.${edge.from}`);
    await rm(source, { force: true });
    await symlink(input, source);

    const args: string[] = [];
    // Files run before the input (the PDF/A prologue), after -sOutputFile has opened the device.
    const before: string[] = [];
    let multi = false;
    if (edge.from === 'pdf') {
      const { count, sizes } = await pdfPages(path, source, ctx);
      const pages = selectPages(options.pages, count);
      if (options.pages) args.push(`-sPageList=${options.pages}`);
      if (edge.to === 'png' || edge.to === 'jpg') {
        checkRasterLimits(pages, sizes, options.dpi ?? DEFAULT_DPI);
        args.push(...rasterDevice(edge.to, options));
        multi = true;
      }
    }
    const archive = edge.to === 'pdfa' || (edge.to === 'pdf' && options.pdfa !== undefined);
    if (archive) {
      const pdfa = await pdfaArgs(path, ctx);
      // A lossy preset with PDF/A: its resolutions, PDF/A's device and colours.
      args.push(...compressionArgs(options).filter((a) => a.startsWith('-dPDFSETTINGS')), ...pdfa.args);
      if (pdfa.prologue) before.push(pdfa.prologue);
    } else if (edge.to === 'pdf' && edge.from === 'pdf') {
      const compression = compressionArgs(options);
      args.push(...(compression.length > 0 ? compression : ['-sDEVICE=pdfwrite']), ...greyscaleArgs(options));
    } else if (edge.to === 'pdf') {
      args.push('-sDEVICE=pdfwrite', ...(edge.from === 'eps' ? ['-dEPSCrop'] : []));
    } else if (edge.to === 'ps') {
      args.push('-sDEVICE=ps2write');
    } else if (edge.to === 'png' && edge.from === 'eps') {
      args.push('-dEPSCrop', ...rasterDevice('png', options));
    } else if (!multi) {
      throw new FileconvError('CONVERT_FAILED', `ghostscript cannot do ${edge.from}-${edge.to}`);
    }

    // Run after the input, whose own information Ghostscript copies when it reads it.
    const after: string[] = [];
    const info = edge.from === 'pdf' ? docInfoPdfmark(options, archive) : undefined;
    if (info) {
      const file = join(ctx.workDir, 'docinfo.ps');
      await writeFile(file, `%!\n${info}\n`);
      after.push(file);
    }
    const ext = edge.to === 'pdfa' ? 'pdf' : edge.to;
    // Run inside outDir with a relative output name: ghostscript expands % in -sOutputFile.
    const outName = multi ? `page-%d.${ext}` : `output.${ext}`;
    const { stdout, stderr } = await gs(
      path,
      [...args, `-sOutputFile=${outName}`, ...before, source, ...after],
      ctx,
      outDir,
    );
    const files = multi ? await pageFilesInOrder(outDir, ext) : [join(outDir, outName)];
    if (files.length === 0 || !(await nonEmpty(files[0]!))) {
      throw (
        classify(stderr + stdout) ??
        new FileconvError('MALFORMED_DOCUMENT', 'Ghostscript produced no output.')
      );
    }
    if (archive) await assertPdfA(files[0]!, ctx, 'Ghostscript', info ? options : {});
    // A greyscale result is what was asked, whatever its size: the input is no substitute.
    else if (edge.from === 'pdf' && edge.to === 'pdf' && !options.greyscale)
      await keepSmaller(input, files[0]!, ctx, !info);
    ctx.progress(1);
    return { files };
  },
});

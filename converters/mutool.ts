import { join } from 'node:path';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { pages } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf } from '../src/formats/index.js';
import { findBinary, probeBinary, runReadingInput } from '../src/run/process.js';
import { assertTextFileFound } from './_text-layer.js';

/*
 * XPS, the fixed-page format Windows prints to ("Microsoft XPS Document Writer") and OpenXPS: a
 * ZIP of pages in XAML with their fonts and pictures. MuPDF's `mutool convert` draws each page into
 * a PDF with its text as text and its fonts embedded, or writes out the text its glyphs carry.
 */
const WRITERS = { pdf: 'pdf', txt: 'text' } as const;

const edges: ConversionEdge[] = [
  { from: 'xps', to: 'pdf', family: 'document', lossy: false, cost: 4 },
  { from: 'xps', to: 'txt', family: 'document', lossy: true, cost: 3 },
];

const OPTIONS = { pages };

/** What mutool says when the package is no XPS it can open. */
const UNREADABLE = /cannot (open|find|recognize|read)|zip|not an xps|syntax error|unknown document/i;

export default defineConverter({
  name: 'mutool',
  description:
    "XPS and OpenXPS documents (Windows' print-to-file format) to PDF with their text and fonts, and to plain text: MuPDF's mutool",
  packages: ['mupdf-tools'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(['mutool'], ['-v'], /version (\d[\d.]*)/),
  async run({ edge, input, outDir, options }, ctx) {
    const mutool = findBinary(['mutool']);
    if (!mutool) throw new FileconvError('CONVERT_FAILED', 'mutool (mupdf-tools) is not installed.');
    const own = optionsFor(OPTIONS, options);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    const args = ['convert', '-F', WRITERS[edge.to as keyof typeof WRITERS], '-o', output, input];
    if (own.pages) args.push(own.pages);
    ctx.progress(0.1);
    await runReadingInput(mutool, args, ctx, UNREADABLE);
    // Text drawn as outlines (Ghostscript's XPS writer draws it so) leaves nothing to read.
    if (edge.to === 'txt') await assertTextFileFound(output);
    ctx.progress(1);
    return { files: [output] };
  },
});

import { join } from 'node:path';
import { type ConversionEdge, defineConverter, type StepContext } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { pages } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf } from '../src/formats/index.js';
import { findBinary, probeBinary, runReadingInput } from '../src/run/process.js';
import { assertTextFileFound } from './_text-layer.js';

/*
 * DjVu is how many scanned books and papers are kept: pages as layered pictures (a sharp
 * black-and-white mask over a smaller colour background), sometimes with a hidden text layer.
 * ddjvu composes each page at its own resolution. Its PDF holds each page as one picture: the
 * hidden text does not come along, so both picture targets are lossy. Text comes from the hidden
 * layer itself (djvutxt); a scan without one is NEEDS_OCR, and `ocr: true` then reads the pages
 * through the PDF.
 */
const TARGETS = { pdf: 'pdf', tiff: 'tiff' } as const;

const edges: ConversionEdge[] = [
  ...Object.keys(TARGETS).map((to) => ({
    from: 'djvu',
    to,
    family: 'document' as const,
    lossy: true,
    cost: 5,
  })),
  { from: 'djvu', to: 'txt', family: 'document', lossy: true, cost: 2 },
];

const OPTIONS = { pages };

/** What ddjvu says when the bytes are no DjVu it can decode. */
const UNREADABLE = /Cannot decode|Unrecognized DjVu|corrupt|Illegal|EOF|not a DjVu|Unexpected/i;

async function djvulibre(tool: string, args: string[], ctx: StepContext): Promise<void> {
  const bin = findBinary([tool]);
  if (!bin) throw new FileconvError('CONVERT_FAILED', `${tool} (djvulibre-bin) is not installed.`);
  await runReadingInput(bin, args, ctx, UNREADABLE);
}

export default defineConverter({
  name: 'djvulibre',
  description:
    "DjVu documents (scanned books and papers) to PDF and multi-page TIFF, every page composed at its own resolution by DjVuLibre's ddjvu, and to text from their hidden text layer (djvutxt)",
  packages: ['djvulibre-bin'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(['ddjvu'], ['--help'], /DjVuLibre-(\d[\d.]*)/),
  async run({ edge, input, outDir, options }, ctx) {
    const own = optionsFor(OPTIONS, options);
    // Both tools take the same page selection as the option: `1-3,5`.
    const selection = own.pages ? [`-page=${own.pages}`] : [];
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    ctx.progress(0.1);
    if (edge.to === 'txt') {
      await djvulibre('djvutxt', [...selection, input, output], ctx);
      await assertTextFileFound(output);
    } else {
      const format = TARGETS[edge.to as keyof typeof TARGETS];
      await djvulibre('ddjvu', [`-format=${format}`, '-quality=85', ...selection, input, output], ctx);
    }
    ctx.progress(1);
    return { files: [output] };
  },
});

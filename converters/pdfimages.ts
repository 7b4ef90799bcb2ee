import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { pages } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { probeBinary, runProcess } from '../src/run/process.js';
import { zipOutputs } from '../src/run/zip.js';
import { assertPdfHeader, pageRuns, pdfPageCount, popplerTool, selectPages } from './_pdf.js';

/**
 * The pictures a PDF holds, taken out as they are stored (`pdfimages -all`): a JPEG stays the
 * JPEG it was, JPEG 2000 and JBIG2 keep their encodings, the rest become PNG (or PNM for CMYK).
 * They come as one ZIP, named by page: `page-003-002.jpg` is page 3's second picture. Soft masks
 * (transparency) are pictures of their own.
 */

/** Pictures one ZIP may hold: each is a file written to disk first. */
export const MAX_PICTURES = 10_000;

const OPTIONS = { pages };

const edges: ConversionEdge[] = [
  // Only from the user's own PDF (meaning.ts): a document made into a PDF first has new pictures.
  { from: 'pdf', to: 'zip', family: 'pictures', lossy: false, cost: 5 },
];

/** pdfimages' `run0000-003-017.jpg` (page 3, the run's 18th picture) as `page-003-001.jpg`, in page order. */
function pageNames(names: readonly string[]): [string, string][] {
  const parsed = names.map((n) => {
    const [, page, picture, ext] = /^run\d{4}-(\d+)-(\d+)\.(\w+)$/.exec(n) ?? [];
    return { n, page: Number(page), picture: Number(picture), ext: ext ?? 'bin' };
  });
  parsed.sort((a, b) => a.page - b.page || a.picture - b.picture);
  const seen = new Map<number, number>();
  return parsed.map(({ n, page, ext }) => {
    const k = (seen.get(page) ?? 0) + 1;
    seen.set(page, k);
    return [n, `page-${String(page).padStart(3, '0')}-${String(k).padStart(3, '0')}.${ext}`];
  });
}

export default defineConverter({
  name: 'pdfimages',
  description: "poppler's pdfimages: the pictures a PDF holds, in their own encodings, as a ZIP",
  packages: ['poppler-utils'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(['pdfimages'], ['-v'], /pdfimages version (\S+)/),
  async run({ input, outDir, options }, ctx) {
    const o = optionsFor(OPTIONS, options);
    await assertPdfHeader(input);
    const asked = selectPages(o.pages, await pdfPageCount(input, ctx));
    const chosen = [...new Set(asked)].sort((a, b) => a - b);
    const folder = join(ctx.workDir, 'pictures');
    await mkdir(folder);
    // -p puts the page number in each name; one run per span of pages asked.
    for (const [i, [first, last]] of pageRuns(chosen).entries()) {
      const prefix = join(folder, `run${String(i).padStart(4, '0')}`);
      await runProcess(
        popplerTool('pdfimages'),
        ['-all', '-p', '-f', String(first), '-l', String(last), input, prefix],
        ctx,
      );
    }
    const names = (await readdir(folder)).sort();
    if (names.length === 0)
      throw new FileconvError('CONVERT_FAILED', 'The PDF holds no pictures to take out.');
    if (names.length > MAX_PICTURES)
      throw new FileconvError(
        'OUTPUT_TOO_LARGE',
        `The PDF holds ${names.length} pictures; at most ${MAX_PICTURES} are put in one ZIP (choose pages).`,
      );
    const output = join(outDir, 'pictures.zip');
    await zipOutputs(
      pageNames(names).map(([n, name]) => ({ path: join(folder, n), name })),
      output,
    );
    ctx.log(`${names.length} picture(s) taken out`);
    return { files: [output] };
  },
});

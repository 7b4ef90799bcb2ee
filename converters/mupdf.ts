import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { convertersDir } from '../src/engine/package-files.js';
import { keepActiveContent } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { runProcess } from '../src/run/process.js';
import { MUPDF_OPTIONS, mupdfJob, wantsMupdf } from './_mupdf-options.js';
import { assertPdfHeader } from './_pdf.js';
import { withoutActiveContent } from './_pdf-active.js';
import { probeScriptPython, scriptAnswer, scriptRefusal } from './_script-answer.js';

/**
 * Page operations by MuPDF through its Python binding (python3-fitz): redaction that removes what
 * is under each box, rotation of chosen pages, blank pages removed, cropping, several pages a
 * sheet and booklets. One run of converters/mupdf/pdf_tools.py does all a step asks, reading its
 * parameters from a job file in the step's folder.
 */

const OPTIONS = { ...MUPDF_OPTIONS, keep_active_content: keepActiveContent };

const edges: ConversionEdge[] = [
  { from: 'pdf', to: 'pdf', family: 'document', lossy: false, cost: 6, skipWhen: (o) => !wantsMupdf(o) },
];

const script = () => convertersDir('mupdf', 'pdf_tools.py');
const probe = () =>
  probeScriptPython(
    'import fitz; print("PyMuPDF", fitz.VersionBind)',
    /PyMuPDF (\d+\.\d+(?:\.\d+)?)/,
    'no Python that can import fitz (install python3-fitz)',
  );

interface Done {
  pages_in: number;
  pages_out: number;
  redacted_areas?: number;
  redacted_pages?: number;
  removed_pages?: number[];
}

function describe(done: Done): string[] {
  const lines: string[] = [];
  if (done.redacted_areas !== undefined)
    lines.push(`redacted ${done.redacted_areas} area(s) on ${done.redacted_pages} page(s)`);
  if (done.removed_pages)
    lines.push(
      done.removed_pages.length > 0
        ? `blank pages removed: ${done.removed_pages.join(', ')}`
        : 'no blank pages found',
    );
  lines.push(`${done.pages_in} page(s) in, ${done.pages_out} out`);
  return lines;
}

export default defineConverter({
  name: 'mupdf',
  description:
    'MuPDF (python3-fitz): redaction that removes what is under each box, rotation of chosen pages, blank pages removed, cropping, several pages a sheet and booklets',
  packages: ['python3-fitz', 'qpdf'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe,
  async run({ input: given, outDir, options }, ctx) {
    const o = optionsFor(OPTIONS, options);
    const python = await probe();
    if (!python.ok || !python.path) throw new FileconvError('CONVERT_FAILED', python.detail);
    await assertPdfHeader(given);
    const input = await withoutActiveContent(given, o, ctx);
    const output = join(outDir, 'output.pdf');
    const job = join(ctx.workDir, 'job.json');
    await writeFile(job, JSON.stringify(mupdfJob(input, output, o)));
    const { stdout } = await runProcess(python.path, [script(), job], ctx, { readable: [script()] }).catch(
      (e: unknown) => {
        throw scriptRefusal(e, 'MuPDF refused the options.');
      },
    );
    for (const line of describe(scriptAnswer<Done>(stdout))) ctx.log(line);
    return { files: [output] };
  },
});

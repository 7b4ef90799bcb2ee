import type { StepContext } from '../../src/engine/contract.js';
import { isFileconvError } from '../../src/errors/index.js';
import { pdfPageCount } from '../_pdf.js';
import { convertThroughPool, type PooledConversion } from './convert.js';
import { textWithPictures } from './pdf-text.js';
import { OfficeTimeout } from './pool.js';

/**
 * Writer's PDF import places every run of text as a frame, which costs seconds a page on a dense
 * paper (measured: about 2 s a page for a 14-page pdfTeX manual on a loaded machine) and can pass
 * the step's time limit on a long one. Past a page budget, or when the layout import overruns its
 * share of the time, the document is made from the PDF's text instead (what `mode: "text"` asks
 * for): flowing paragraphs, without the layout, and the timeline says so.
 */
export const LAYOUT_PAGE_BUDGET = 40;
/** The share of the step's time the layout import may take before the text takes over. */
const LAYOUT_TIME_SHARE = 0.6;

/** Converts a PDF to a Writer format through the pool; false when the pool cannot run here. */
export async function writerFromPdf(job: PooledConversion, pdf: string, ctx: StepContext): Promise<boolean> {
  const pages = await pdfPageCount(pdf, ctx);
  let why: string;
  if (pages > LAYOUT_PAGE_BUDGET) {
    why = `${pages} pages, past the layout import's budget of ${LAYOUT_PAGE_BUDGET}`;
  } else {
    const budgetMs = Math.round(ctx.timeoutMs * LAYOUT_TIME_SHARE);
    try {
      return await convertThroughPool(job, { ...ctx, timeoutMs: budgetMs });
    } catch (e) {
      if (!(isFileconvError(e) && e.cause instanceof OfficeTimeout) || ctx.signal.aborted) throw e;
      why = `the layout import of ${pages} pages took longer than ${Math.round(budgetMs / 1000)} s`;
    }
  }
  const { file, pictures } = await textWithPictures(pdf, ctx);
  const carried = pictures === 1 ? ' and its picture' : pictures > 1 ? ` and its ${pictures} pictures` : '';
  ctx.log(
    `pdf import: made from the PDF's text${carried} as flowing paragraphs (mode text), not its layout: ${why}`,
  );
  return convertThroughPool(
    {
      input: file,
      output: job.output,
      importFilter: 'OpenDocument Text Flat XML',
      exportFilter: job.exportFilter,
    },
    ctx,
  );
}

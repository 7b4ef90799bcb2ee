import type { StepContext } from '../../src/engine/contract.js';
import type { DocInfo } from '../_pdfa.js';
import type { PageSetup } from './instance.js';
import { convertWithPool, officePoolAvailable } from './pool.js';

/**
 * The converter's door to the pool: takes filters the way `soffice --convert-to` spells them
 * (`name:options`) and answers false when the pool cannot run here, so the caller goes one-shot.
 */

export interface PooledConversion {
  input: string;
  output: string;
  /** Import filter as `--infilter` takes it, e.g. `Text - txt - csv (StarCalc):44,34,76,1`. */
  importFilter: string;
  /** Export filter as `--convert-to` takes it after the extension, e.g. `Text (encoded):UTF8`. */
  exportFilter: string;
  /** For PDF export: the pages and quality options, passed as the filter's FilterData. */
  pdfOptions?: PdfExportOptions;
  /** The input is a PDF read by Writer's PDF import (see BridgeRequest.pdfPages). */
  pdfPages?: boolean;
  /** The password of a protected input (see BridgeRequest.password). */
  password?: string;
  /** The input is password-protected (see PoolConversion.encrypted). */
  encrypted?: boolean;
  /** Paper, orientation, margins and scaling for PDF export (page-setup.ts). */
  pageSetup?: PageSetup;
  /** Document information set before the export (instance.ts). */
  docInfo?: DocInfo;
}

/** The converter's options that PDF export reads. */
export interface PdfExportOptions {
  pages?: string;
  quality?: number;
  /** Spreadsheets: each sheet on one page, as large as it needs. */
  single_page_sheets?: boolean;
  /** PDF/A-2b: the export's own PDF/A mode (XMP identification, sRGB output intent, fonts embedded). */
  pdfa?: '2b';
}

/** `name:options` split at the first colon (filter names hold none; CSV options hold no colon). */
export function splitFilter(spec: string): { name: string; options?: string } {
  const colon = spec.indexOf(':');
  return colon < 0 ? { name: spec } : { name: spec.slice(0, colon), options: spec.slice(colon + 1) };
}

function pdfFilterData(options: PdfExportOptions): Record<string, string | number | boolean> | undefined {
  const data: Record<string, string | number | boolean> = {};
  if (options.pages) data.PageRange = options.pages;
  if (options.quality) data.Quality = options.quality;
  if (options.single_page_sheets) data.SinglePageSheets = true;
  // SelectPdfVersion 2 is PDF/A-2b.
  if (options.pdfa) data.SelectPdfVersion = 2;
  return Object.keys(data).length ? data : undefined;
}

/** Converts through the warm pool; false (and a timeline line saying why) when the pool is unavailable. */
export async function convertThroughPool(job: PooledConversion, ctx: StepContext): Promise<boolean> {
  const available = await officePoolAvailable();
  if (!available.ok) {
    ctx.log(`libreoffice pool unavailable (${available.reason}); using one-shot soffice`);
    return false;
  }
  const from = splitFilter(job.importFilter);
  const to = splitFilter(job.exportFilter);
  ctx.log(`libreoffice (warm pool) ${from.name} -> ${to.name}`);
  await convertWithPool({
    input: job.input,
    output: job.output,
    inputFilter: from.name,
    inputFilterOptions: from.options,
    filter: to.name,
    filterOptions: to.options,
    filterData: job.pdfOptions ? pdfFilterData(job.pdfOptions) : undefined,
    pdfPages: job.pdfPages,
    password: job.password,
    pageSetup: job.pageSetup,
    docInfo: job.docInfo,
    encrypted: job.encrypted,
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    log: ctx.log,
  });
  return true;
}

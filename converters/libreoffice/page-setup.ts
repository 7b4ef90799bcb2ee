import type { FormatId } from '../../src/formats/index.js';
import { marginPoints, paperPoints } from '../_page-layout.js';
import type { PageSetup } from './instance.js';

/**
 * The page options (`paper`, `landscape`, `margin`, `fit_width`) as LibreOffice's page styles take
 * them: lengths in 1/100 mm. The values were checked by the shared option schemas
 * (src/engine/shared-options.ts), so only the forms those allow are read here.
 */

/** Points (1/72 inch) in LibreOffice's 1/100 mm. */
const hundredthsOfMm = (points: number) => Math.round((points * 2540) / 72);

export interface PageOptions {
  paper?: string;
  landscape?: boolean;
  margin?: string;
  fit_width?: boolean;
}

/** Formats Calc opens as text: their default page style prints the file's name as a header. */
const TEXT_TABLES = new Set<FormatId>(['csv', 'tsv']);

/** The page style settings of one export to PDF, or undefined when nothing is to change. */
export function pageSetupFor(from: FormatId, options: PageOptions): PageSetup | undefined {
  const setup: PageSetup = {};
  if (options.paper)
    [setup.width, setup.height] = paperPoints(options.paper).map(hundredthsOfMm) as [number, number];
  if (options.landscape !== undefined) setup.landscape = options.landscape;
  if (options.margin)
    setup.margins = marginPoints(options.margin).map(hundredthsOfMm) as [number, number, number, number];
  if (options.fit_width) setup.fitWidth = true;
  // A table uploaded as text has no page setup of its own; its name is no heading for it.
  if (TEXT_TABLES.has(from)) setup.noHeader = true;
  return Object.keys(setup).length > 0 ? setup : undefined;
}

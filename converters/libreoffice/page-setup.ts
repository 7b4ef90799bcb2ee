import type { FormatId } from '../../src/formats/index.js';
import type { PageSetup } from './instance.js';

/**
 * The page options (`paper`, `landscape`, `margin`, `fit_width`) as LibreOffice's page styles take
 * them: lengths in 1/100 mm. The values were checked by the shared option schemas
 * (src/engine/shared-options.ts), so only the forms those allow are read here.
 */

/** Portrait paper sizes in mm, the names the `paper` option takes. */
const PAPER_MM: Record<string, [number, number]> = {
  a3: [297, 420],
  a4: [210, 297],
  a5: [148, 210],
  letter: [215.9, 279.4],
  legal: [215.9, 355.6],
  tabloid: [279.4, 431.8],
};

const MM_PER: Record<string, number> = { mm: 1, cm: 10, in: 25.4, px: 25.4 / 96 };

/** A CSS length (`12.5mm`, `1in`, `96px`) in 1/100 mm. */
function hundredthsOfMm(length: string): number {
  const unit = length.slice(-2).toLowerCase();
  return Math.round(Number(length.slice(0, -2)) * (MM_PER[unit] ?? 1) * 100);
}

function paperSize(value: string): [number, number] {
  const named = PAPER_MM[value.toLowerCase()];
  if (named) return [Math.round(named[0] * 100), Math.round(named[1] * 100)];
  // WxH then the unit: `210x297mm`.
  const unit = value.slice(-2);
  const [width = '0', height = '0'] = value.slice(0, -2).split(/x/i);
  return [hundredthsOfMm(`${width}${unit}`), hundredthsOfMm(`${height}${unit}`)];
}

/** CSS shorthand: one to four lengths, top right bottom left. */
function margins(value: string): [number, number, number, number] {
  const [top = '0mm', right = top, bottom = top, left = right] = value.split(' ');
  return [top, right, bottom, left].map(hundredthsOfMm) as [number, number, number, number];
}

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
  if (options.paper) [setup.width, setup.height] = paperSize(options.paper);
  if (options.landscape !== undefined) setup.landscape = options.landscape;
  if (options.margin) setup.margins = margins(options.margin);
  if (options.fit_width) setup.fitWidth = true;
  // A table uploaded as text has no page setup of its own; its name is no heading for it.
  if (TEXT_TABLES.has(from)) setup.noHeader = true;
  return Object.keys(setup).length > 0 ? setup : undefined;
}

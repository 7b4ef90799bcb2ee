import { type ConversionOptions, pickOptions } from '../engine/options.js';
import { FileconvError, isFileconvError } from '../errors/index.js';
import type { FormatId } from '../formats/index.js';
import type { PlannerEngines } from '../plan/graph.js';
import { planWithOptions } from '../plan/options.js';
import type { Plan } from '../plan/types.js';

/**
 * The options that lay out a printed page. On a merge they are not an operation on the joined
 * file (no engine resizes a PDF's pages): each input whose own conversion takes them is made on
 * that paper (a picture fitted to it, a document printed on it), and inputs already in the target
 * keep their pages as they are. So "pictures to one A4 PDF" is a merge with `paper: A4`.
 */
export const LAYOUT_OPTIONS: readonly string[] = ['paper', 'landscape', 'margin', 'fit'];

/** The layout options among a merge's (already parsed) options. */
export function layoutOf(options: ConversionOptions): ConversionOptions {
  return pickOptions(options, LAYOUT_OPTIONS);
}

function refusal(e: unknown): boolean {
  return isFileconvError(e) && (e.code === 'INVALID_REQUEST' || e.code === 'UNSUPPORTED_CONVERSION');
}

/**
 * One input's conversion to the merge's target with the layout options its steps take: each
 * option is tried on its own (a document printed by LibreOffice takes a paper but no `fit`), then
 * the ones taken are planned together. Returns the plan and the options it is given.
 */
export function planInputLayout(
  from: FormatId,
  to: FormatId,
  layout: ConversionOptions,
  engines: PlannerEngines,
): { plan: Plan; options: ConversionOptions } {
  const taken = Object.keys(layout).filter((name) => {
    try {
      planWithOptions({ from, to, options: { [name]: layout[name] } }, engines);
      return true;
    } catch (e) {
      if (refusal(e)) return false;
      throw e;
    }
  });
  const options = pickOptions(layout, taken);
  return { plan: planWithOptions({ from, to, options }, engines).plan, options };
}

/**
 * Refuses a layout option that no input of the merge takes (every input a PDF already, say):
 * asked for and done nowhere, it would be silently ignored.
 */
export function assertLayoutTaken(
  layout: ConversionOptions,
  given: readonly (ConversionOptions | undefined)[],
  to: FormatId,
): void {
  for (const name of Object.keys(layout)) {
    if (given.some((options) => options && name in options)) continue;
    throw new FileconvError(
      'INVALID_REQUEST',
      `option ${name} applies to no input of this merge: inputs already ${to} keep their pages as they are, and no other input's conversion to ${to} takes it`,
      { extra: { option: name } },
    );
  }
}

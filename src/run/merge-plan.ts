import type { Converter } from '../engine/contract.js';
import { type ConversionOptions, parseOptions, pickOptions } from '../engine/options.js';
import { FileconvError, isFileconvError } from '../errors/index.js';
import type { FormatId } from '../formats/index.js';
import { buildGraph, type PlannerEngines } from '../plan/graph.js';
import { declaredOptions, planWithOptions } from '../plan/options.js';
import type { Plan } from '../plan/types.js';
import { assertLayoutTaken, LAYOUT_OPTIONS, layoutOf, planInputLayout } from './merge-layout.js';
import { checkInputCount } from './merge-limits.js';
import type { ConversionJob } from './types.js';

/**
 * Several inputs, one output: each input is converted to the target by its own plan (a PDF as it
 * is, a DOCX by LibreOffice, a PNG by the image engines...), then the engine that declares a merge
 * of that format (qpdf for PDF) joins them in order. Options the merge declares go to it; the
 * page layout (`paper`, `landscape`, `margin`, `fit`: merge-layout.ts) goes to each input's own
 * conversion that takes it; any other option is an operation on the joined file (`compress`,
 * `user_password`...), run last.
 */

export interface MergeInput {
  path: string;
  /** The name it was given (its bookmark's title, and what errors call it). */
  name: string;
  from: FormatId;
}

export interface MergeJob extends Omit<ConversionJob, 'input' | 'from'> {
  inputs: readonly MergeInput[];
}

export interface MergePlan {
  merger: Converter;
  /** Each input's plan to the target and the layout options it takes; no plan for an input already in it. */
  inputs: { input: MergeInput; plan?: Plan; options?: ConversionOptions }[];
  /** The operation on the joined file, when options other than the merge's were given. */
  after?: Plan;
  mergeOptions: ConversionOptions;
  afterOptions: ConversionOptions;
}

/** The same failure, saying which input it came from (extra.input, counted from 1). */
export function ofInput(e: unknown, index: number, name: string): unknown {
  if (!isFileconvError(e)) return e;
  const message = e.message.startsWith('Input ') ? e.message : `Input ${index + 1} (${name}): ${e.message}`;
  return new FileconvError(e.code, message, {
    cause: e,
    extra: { ...e.extra, input: index + 1, input_name: name },
  });
}

function mergerOf(engines: PlannerEngines, to: FormatId): Converter {
  const merger = buildGraph(engines).converters.find((c) => c.merge?.format === to);
  if (!merger)
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `Several inputs are merged into one ${to}, and no installed engine merges ${to} files.`,
    );
  return merger;
}

/** The options of a merge, split between the inputs' conversions, the merge engine and an operation on the joined file. */
interface MergeOptions {
  merger: Converter;
  after?: Plan;
  mergeOptions: ConversionOptions;
  afterOptions: ConversionOptions;
  /** The page layout, for the inputs whose conversion takes it. */
  layoutOptions: ConversionOptions;
}

/**
 * Checks a merge's options whatever its inputs: an engine that merges `to`, every option declared
 * and valid, the page layout kept for the inputs' conversions (whether one takes it depends on the
 * inputs: planMerge), the others the merge does not take planned as one operation on the joined
 * file. Throws INVALID_REQUEST for bad options (also a recipe's, when it is saved:
 * src/core/recipes.ts).
 */
export function checkMergeOptions(options: unknown, to: FormatId, engines: PlannerEngines): MergeOptions {
  const merger = mergerOf(engines, to);
  const parsed = parseOptions(options, declaredOptions(buildGraph(engines).converters));
  const names = Object.keys(parsed);
  const mergeOptions = pickOptions(parsed, merger.merge?.options ?? []);
  const layoutOptions = layoutOf(parsed);
  const afterOptions = pickOptions(
    parsed,
    names.filter((n) => !(n in mergeOptions) && !LAYOUT_OPTIONS.includes(n)),
  );
  if ('password' in afterOptions)
    throw new FileconvError(
      'INVALID_REQUEST',
      'option password does not apply to a merge: open each protected input on its own first (a pdf-pdf conversion with its password), then merge the results.',
    );
  const after =
    Object.keys(afterOptions).length > 0
      ? planWithOptions({ from: to, to, options: afterOptions }, engines).plan
      : undefined;
  return { merger, after, mergeOptions, afterOptions, layoutOptions };
}

/**
 * Plans a merge: the engine that merges, each input's conversion, the options split between the
 * merge and an operation after it. Throws INVALID_REQUEST for too many inputs or bad options,
 * UNSUPPORTED_CONVERSION naming the input that cannot become the target.
 */
export function planMerge(
  job: Pick<MergeJob, 'inputs' | 'to' | 'options'>,
  engines: PlannerEngines,
): MergePlan {
  checkInputCount(job.inputs.length);
  const { merger, after, mergeOptions, afterOptions, layoutOptions } = checkMergeOptions(
    job.options,
    job.to,
    engines,
  );
  const layout = Object.keys(layoutOptions).length > 0;
  // A merge of a hundred pictures plans one picture's conversion once.
  const byFormat = new Map<FormatId, { plan: Plan; options?: ConversionOptions }>();
  const inputs = job.inputs.map((input, i): MergePlan['inputs'][number] => {
    if (input.from === job.to) return { input };
    try {
      let planned = byFormat.get(input.from);
      if (!planned) {
        planned = layout
          ? planInputLayout(input.from, job.to, layoutOptions, engines)
          : { plan: planWithOptions({ from: input.from, to: job.to }, engines).plan };
        byFormat.set(input.from, planned);
      }
      return { input, ...planned };
    } catch (e) {
      throw ofInput(e, i, input.name);
    }
  });
  if (layout)
    assertLayoutTaken(
      layoutOptions,
      inputs.map((i) => i.options),
      job.to,
    );
  return { merger, inputs, after, mergeOptions, afterOptions };
}

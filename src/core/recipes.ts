import { z } from 'zod';
import { type ConversionOptions, parseOptions } from '../engine/options.js';
import { FileconvError, isFileconvError } from '../errors/index.js';
import { resolveFormat } from '../formats/index.js';
import { buildGraph, type PlannerEngines } from '../plan/graph.js';
import { declaredOptions, planWithOptions } from '../plan/options.js';
import type { Plan } from '../plan/types.js';
import { checkMergeOptions } from '../run/merge.js';

/**
 * A recipe: a named target and set of options kept as JSON and used again and again ("scan to
 * archive": OCR in German and English, compress, PDF/A-2b). The options are the chain: the planner
 * turns them into the engine steps, in the order the operations need (docs/operations.md, "Several
 * operations in one request"), exactly as for a request that spells them out. A recipe holds no
 * password: passwords are given with each run and never kept.
 */
export const RECIPE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const recipeSchema = z
  .strictObject(
    {
      name: z
        .string({ error: 'must be a string' })
        .regex(RECIPE_NAME, {
          error: 'must be 1 to 64 lower-case letters, digits, - or _, starting with a letter or digit',
        })
        .meta({ description: 'The name the recipe is saved and called by.', example: 'scan-to-archive' }),
      description: z
        .string({ error: 'must be a string' })
        .max(500, { error: 'must be at most 500 characters' })
        .optional()
        .meta({ description: 'What the recipe is for, shown in lists.' }),
      to: z
        .string({ error: 'must be a format id like "pdf"' })
        .min(1, { error: 'must be a format id like "pdf"' })
        .meta({ description: 'Target format id, alias or extension.', example: 'pdf' }),
      from: z
        .array(z.string({ error: 'must be a list of format ids' }), { error: 'must be a list of format ids' })
        .min(1, { error: 'must name at least one format' })
        .optional()
        .meta({
          description:
            'The source formats the recipe is meant for; each must convert to `to` with these options. Default: any format that does.',
          example: ['pdf'],
        }),
      options: z
        .record(z.string(), z.unknown(), { error: 'must be an object' })
        .optional()
        .meta({ description: "Conversion options, as in a request's meta.options.", example: { ocr: true } }),
      merge: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .meta({ description: 'Several inputs of one run become one file (a merge); default false.' }),
    },
    { error: 'must be a JSON object' },
  )
  .meta({
    id: 'Recipe',
    description: 'A named target and options, checked when saved (docs/operations.md, "Recipes").',
  });

/** A recipe as written: what `recipeSchema` accepts. */
export type RecipeInput = z.input<typeof recipeSchema>;

/** A recipe that passed `checkRecipe`: its target resolved to a format id, its options parsed. */
export interface Recipe {
  name: string;
  description?: string;
  to: string;
  from?: string[];
  options: ConversionOptions;
  merge: boolean;
}

function invalid(message: string, extra: Record<string, unknown> = {}): FileconvError {
  return new FileconvError('INVALID_REQUEST', message, { extra });
}

function formatId(given: string, field: string): string {
  const id = resolveFormat(given)?.id;
  if (!id) throw invalid(`recipe ${field}: unknown format ${JSON.stringify(given)}`, { field });
  return id;
}

/** Whether `options` plan from `from` to `to`; the refusal when they do not. */
function tryPlan(from: string, to: string, options: ConversionOptions, engines: PlannerEngines): unknown {
  try {
    planWithOptions({ from, to, options }, engines);
    return undefined;
  } catch (e) {
    if (isFileconvError(e)) return e;
    throw e;
  }
}

/**
 * Checks a recipe against what the installed engines declare, as a request's options are checked,
 * but for every source it is meant for, at once: when it is saved, not when it first runs.
 * Throws INVALID_REQUEST naming the field or the option it got wrong (`extra.option`).
 */
export function checkRecipe(
  raw: unknown,
  catalog: { engines: PlannerEngines; plans: readonly Plan[] },
): Recipe {
  const parsed = recipeSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'recipe';
    throw invalid(`recipe ${field} ${issue?.message ?? 'is not valid'}`.replace('recipe recipe', 'recipe'), {
      field,
    });
  }
  const r = parsed.data;
  const to = formatId(r.to, 'to');
  const from = r.from?.map((f) => formatId(f, 'from'));
  const specs = declaredOptions(buildGraph(catalog.engines).converters);
  for (const name of Object.keys(r.options ?? {})) {
    if (specs.get(name)?.secret)
      throw invalid(
        `recipe option ${name} is a password: a recipe keeps none; give it with each run (-O ${name}=..., or meta.options)`,
        { option: name },
      );
  }
  const options = withOptionNamed(() => parseOptions(r.options, specs));
  const recipe: Recipe = {
    name: r.name,
    ...(r.description ? { description: r.description } : {}),
    to,
    ...(from ? { from } : {}),
    options,
    merge: r.merge ?? false,
  };
  if (recipe.merge) {
    withOptionNamed(() => checkMergeOptions(options, to, catalog.engines));
    return recipe;
  }
  const sources = from ?? [...new Set(catalog.plans.filter((p) => p.to === to).map((p) => p.from))];
  if (sources.length === 0) throw invalid(`recipe to: nothing converts to ${to} here`, { field: 'to' });
  if (from) {
    for (const source of from) {
      const refusal = tryPlan(source, to, options, catalog.engines);
      if (refusal) throw aboutSource(refusal, source);
    }
    return recipe;
  }
  if (sources.some((source) => !tryPlan(source, to, options, catalog.engines))) return recipe;
  // No source takes the options together: name the one no conversion to the target takes at all.
  for (const [name, value] of Object.entries(options)) {
    if (sources.every((s) => tryPlan(s, to, { [name]: value }, catalog.engines)))
      throw invalid(`recipe option ${name} applies to no conversion to ${to}`, { option: name });
  }
  throw invalid(
    `recipe options ${Object.keys(options).join(', ')} are not taken together by any conversion to ${to}`,
    { option: Object.keys(options)[0] },
  );
}

/** The planner's refusal for one source, saying which. */
function aboutSource(e: unknown, source: string): FileconvError {
  const err = e as FileconvError;
  return new FileconvError(err.code, `recipe from ${source}: ${err.message}`, {
    cause: err,
    extra: { ...err.extra, ...optionOf(err.message) },
  });
}

/** Runs a check whose refusal names an option ("unknown option X", "option X must be ..."), keeping the name in extra.option. */
function withOptionNamed<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (!isFileconvError(e)) throw e;
    throw new FileconvError(e.code, `recipe ${e.message}`, {
      cause: e,
      extra: { ...e.extra, ...optionOf(e.message) },
    });
  }
}

function optionOf(message: string): { option?: string } {
  const m = /\boption (\w+)/.exec(message);
  return m ? { option: m[1] } : {};
}

/**
 * The target a run names besides its recipe: `to`, else the target of `conversion`, as a format
 * id where it is one; undefined when it names none. A run naming another target than its recipe's
 * is refused by each surface in its own words.
 */
export function askedTarget(run: { to?: string; conversion?: string }): string | undefined {
  if (run.to !== undefined) return resolveFormat(run.to)?.id ?? run.to;
  if (run.conversion === undefined) return undefined;
  const last = run.conversion.slice(run.conversion.lastIndexOf('-') + 1);
  return resolveFormat(last)?.id ?? last;
}

/**
 * A run's options with a recipe: the recipe's, then what the run gives (its passwords, or a value
 * that overrides the recipe's for this run).
 */
export function recipeOptions(recipe: Recipe, given?: Record<string, unknown>): Record<string, unknown> {
  return { ...recipe.options, ...(given ?? {}) };
}

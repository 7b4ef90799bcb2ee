import { z } from 'zod';
import { askedTarget, type Recipe, recipeOptions, recipeSchema } from '../core/recipes.js';
import { optionsObjectSchema } from '../engine/options.js';
import { loadConverters } from '../engine/registry.js';
import { FileconvError } from '../errors/index.js';
import { resolveFormat } from '../formats/index.js';
import { declaredOptions } from '../plan/options.js';
import type { Plan } from '../plan/types.js';
import { defineTool, type Tool } from './tool-kit.js';

let options: Promise<z.ZodType> | undefined;

/**
 * The `options` of a conversion: every option a converter declares, from the same declarations the
 * API's meta and OpenAPI document are made of, so an option added to a converter shows here too.
 * Whether the conversion's own steps take each one is checked once it is planned, as the API does.
 */
export function conversionOptionsSchema(): Promise<z.ZodType> {
  options ??= loadConverters().then((converters) =>
    optionsObjectSchema(declaredOptions(converters))
      .optional()
      .describe(
        'Options and operations (pages, rotate, compress, ocr, password, paper, width, quality...); catalog lists the ones a conversion takes. An option no step of the conversion takes is refused.',
      ),
  );
  return options;
}

const format = z.string().min(1).max(40);

/** What every convert tool takes besides its inputs: the target (or a catalog key) and the options. */
export async function targetShape() {
  return {
    to: format
      .optional()
      .describe(
        'Target format: id, alias or extension (pdf, jpeg, .webp). Needed unless conversion is given.',
      ),
    conversion: z
      .string()
      .min(3)
      .max(80)
      .optional()
      .describe('A catalog key like docx-pdf, instead of to: the input must then be of its source format.'),
    options: await conversionOptionsSchema(),
    recipe: z
      .union([z.string().min(1).max(1000), recipeSchema])
      .optional()
      .describe(
        'A recipe (a saved target and options): its name (over HTTP: one saved with POST /api/public/recipes) or its JSON file (over stdio, inside a root), or the recipe itself. Its target and options are used; options given here are added to them (a password goes here, never in a recipe).',
      ),
  };
}

/**
 * A convert call's target and options with its recipe (already loaded and checked): the recipe's
 * target, unless the call names another (refused), and the call's options over the recipe's.
 */
export function withRecipe<T extends { to?: string; conversion?: string; options?: Record<string, unknown> }>(
  args: T,
  recipe: Recipe | undefined,
): T {
  if (!recipe) return args;
  // An unknown `to` is refused as one, as without a recipe.
  if (args.to !== undefined) givenFormat(args.to);
  const asked = askedTarget(args);
  if (asked !== undefined && asked !== recipe.to)
    throw new FileconvError(
      'INVALID_REQUEST',
      `The recipe ${recipe.name} converts to ${recipe.to}, and this call asks for ${asked}: leave out to and conversion, or use another recipe.`,
    );
  return { ...args, to: recipe.to, conversion: undefined, options: recipeOptions(recipe, args.options) };
}

/** The target of a convert call as one format id; refuses an unknown one. */
export function targetOf(args: { to?: string; conversion?: string }): { to?: string; conversion?: string } {
  if (args.to === undefined && args.conversion === undefined)
    throw new FileconvError(
      'INVALID_REQUEST',
      'Give the target format as to (like "pdf"), or a conversion like "docx-pdf".',
    );
  return { to: givenFormat(args.to), conversion: args.conversion };
}

function knownFormat(name: string): string {
  const found = resolveFormat(name);
  if (!found)
    throw new FileconvError(
      'INVALID_REQUEST',
      `Unknown format "${name.slice(0, 40)}"; see the catalog tool.`,
    );
  return found.id;
}

/** The format a file claims to be, as detect takes it. */
export const declaredInput = format
  .optional()
  .describe('The format it claims to be, instead of its extension.');

/** A format the caller may give, as its id; refuses an unknown one. */
export const givenFormat = (name: string | undefined) => (name === undefined ? undefined : knownFormat(name));

const catalogInput = z.object({
  from: format.optional().describe('Only conversions from this format (id, alias or extension).'),
  to: format.optional().describe('Only conversions to this format.'),
  family: z
    .string()
    .max(20)
    .optional()
    .describe('Only conversions of this family: document, image, ocr, voice, video, audio, data...'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(200)
    .describe('At most this many conversions (default 200).'),
});

/** The catalog tool over a list of plans (the installed engines', or the server's). */
export function catalogTool(plans: () => Promise<readonly Plan[]>): Tool {
  return defineTool({
    name: 'catalog',
    title: 'Conversion catalog',
    description:
      'The conversions the installed engines can do: key, source and target format, family, whether it loses anything, and the options it takes. Filter by from, to or family; there are thousands.',
    input: catalogInput,
    readOnly: true,
    async run(args) {
      const from = givenFormat(args.from);
      const to = givenFormat(args.to);
      const found = (await plans()).filter(
        (p) =>
          (!from || p.from === from) && (!to || p.to === to) && (!args.family || p.family === args.family),
      );
      const shown = found.slice(0, args.limit);
      return {
        count: found.length,
        ...(shown.length < found.length ? { truncated: true } : {}),
        conversions: shown.map((p) => ({
          key: p.key,
          from: p.from,
          to: p.to,
          family: p.family,
          lossy: p.lossy,
          options: p.options,
        })),
      };
    },
  });
}

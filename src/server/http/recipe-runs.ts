import { askedTarget, type Recipe, recipeOptions } from '../../core/recipes.js';
import { FileconvError } from '../../errors/index.js';
import type { RecipeRecord } from '../../store/types.js';
import type { ServerContext } from '../context.js';
import type { SavedRecipeView } from './schemas/recipes.js';

/** A saved recipe as the API shows it. */
export function recipeView(r: RecipeRecord): SavedRecipeView {
  const recipe = r.recipe as unknown as Recipe;
  return {
    name: recipe.name,
    ...(recipe.description !== undefined ? { description: recipe.description } : {}),
    to: recipe.to,
    ...(recipe.from ? { from: recipe.from } : {}),
    options: recipe.options as Record<string, unknown>,
    merge: recipe.merge,
    created_at: new Date(r.createdAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

/**
 * The recipe a run names: one saved under the caller's owner token (by name), or a recipe given
 * whole, checked as a save checks it. A saved one is used as it was checked when saved: the run's
 * options are checked against its plan anyway, as every request's are.
 */
export async function recipeOf(
  ctx: ServerContext,
  given: string | Record<string, unknown>,
  ownerHash: string | undefined,
): Promise<Recipe> {
  if (typeof given !== 'string') return ctx.engine.checkRecipe(given);
  const record = ownerHash === undefined ? undefined : await ctx.recipes.getRecipe(ownerHash, given);
  if (!record)
    throw new FileconvError(
      'INVALID_REQUEST',
      `There is no recipe named ${JSON.stringify(given.slice(0, 64))} under this X-Owner-Token; GET /api/public/recipes lists its recipes.`,
      { extra: { field: 'recipe' } },
    );
  return record.recipe as unknown as Recipe;
}

/** Several inputs take a merge recipe: any other converts one file per request. */
export function checkRecipeInputs(recipe: Recipe, inputs: number): void {
  if (inputs > 1 && !recipe.merge)
    throw new FileconvError(
      'INVALID_REQUEST',
      `The recipe ${recipe.name} converts one file per request, and ${inputs} were sent: send them one by one, or use a recipe with "merge": true to merge them into one ${recipe.to}.`,
      { extra: { field: 'recipe' } },
    );
}

/**
 * A run's conversion, target and options with its recipe: the recipe's target (a conversion or
 * `to` naming another is refused; a conversion naming the same keeps the source format it gives)
 * and the run's options over the recipe's (its passwords, or a value for this run only).
 */
export function withRecipeTarget<
  T extends { to?: string; conversion?: string; options?: Record<string, unknown> },
>(run: T, recipe: Recipe, inputs: number): T & { to: string; options: Record<string, unknown> } {
  checkRecipeInputs(recipe, inputs);
  const asked = askedTarget(run);
  if (asked !== undefined && asked !== recipe.to)
    throw new FileconvError(
      'INVALID_REQUEST',
      `The recipe ${recipe.name} converts to ${recipe.to}, and meta asks for ${asked.slice(0, 20)}: leave out meta.to and meta.conversion, or use another recipe.`,
      { extra: { field: 'recipe' } },
    );
  return { ...run, to: recipe.to, options: recipeOptions(recipe, run.options) };
}

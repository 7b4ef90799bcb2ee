import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { RECIPE_NAME } from '../../../core/recipes.js';
import { FileconvError } from '../../../errors/index.js';
import { enforceWriteLimit } from '../../access/metering.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { recipeView } from '../recipe-runs.js';
import { MAX_RECIPES } from '../schemas/recipes.js';
import { fileUnderOwner, sentOwnerHash } from '../writes.js';

/** A recipe is a few hundred bytes; this leaves room for a long description and many options. */
const MAX_RECIPE_BYTES = 64 * 1024;

function noRecipe(name: string): FileconvError {
  return new FileconvError(
    'NOT_FOUND',
    `There is no recipe named ${JSON.stringify(name.slice(0, 64))} under this X-Owner-Token.`,
  );
}

/**
 * Recipes kept per owner token (docs/api.md, "Recipes"). Saves and deletes are writes: they count
 * towards the per-minute write limit and draw no quota. Reads without a token see no recipes.
 */
export function registerRecipeRoutes(app: Hono<AppEnv>, ctx: ServerContext): void {
  const { recipes } = ctx;

  app.post(
    '/api/public/recipes',
    async (c, next) => {
      await enforceWriteLimit(c, ctx.limits);
      // Checked before the body is read, so a bad token costs no upload.
      sentOwnerHash(c);
      await next();
    },
    bodyLimit({
      maxSize: MAX_RECIPE_BYTES,
      onError: () => {
        throw new FileconvError('INVALID_REQUEST', `The recipe is larger than ${MAX_RECIPE_BYTES} bytes.`);
      },
    }),
    async (c) => {
      let raw: unknown;
      try {
        raw = JSON.parse(await c.req.text());
      } catch {
        throw new FileconvError(
          'INVALID_REQUEST',
          'The body is not valid JSON: send a recipe like {"name": "to-pdf", "to": "pdf"}.',
        );
      }
      const recipe = await ctx.engine.checkRecipe(raw);
      const ownerHash = fileUnderOwner(c);
      const { record, replaced } = await recipes.saveRecipe(
        { ownerHash, name: recipe.name, recipe: recipe as unknown as Record<string, unknown> },
        Date.now(),
        MAX_RECIPES,
      );
      c.header('Cache-Control', 'no-store');
      return c.json({ recipe: recipeView(record) }, replaced ? 200 : 201);
    },
  );

  app.get('/api/public/recipes', async (c) => {
    const ownerHash = sentOwnerHash(c);
    const list = ownerHash === undefined ? [] : await recipes.listRecipes(ownerHash);
    c.header('Cache-Control', 'no-store');
    return c.json({ recipes: list.map(recipeView) });
  });

  app.get('/api/public/recipes/:name', async (c) => {
    const name = c.req.param('name');
    const ownerHash = sentOwnerHash(c);
    const record =
      ownerHash === undefined || !RECIPE_NAME.test(name)
        ? undefined
        : await recipes.getRecipe(ownerHash, name);
    if (!record) throw noRecipe(name);
    c.header('Cache-Control', 'no-store');
    return c.json({ recipe: recipeView(record) });
  });

  app.delete('/api/public/recipes/:name', async (c) => {
    await enforceWriteLimit(c, ctx.limits);
    const name = c.req.param('name');
    const ownerHash = sentOwnerHash(c);
    const deleted =
      ownerHash !== undefined && RECIPE_NAME.test(name) && (await recipes.deleteRecipe(ownerHash, name));
    if (!deleted) throw noRecipe(name);
    return c.body(null, 204);
  });
}

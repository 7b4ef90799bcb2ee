import { z } from 'zod';
import { RECIPE_NAME } from '../../../core/recipes.js';
import { ownerTokenSchema } from './query.js';

/** The most recipes one owner token keeps. */
export const MAX_RECIPES = 100;

/** A saved recipe as the API answers it: as checked (target and sources as format ids), with its times. */
export const savedRecipeSchema = z
  .object({
    name: z.string().meta({ example: 'scan-to-archive' }),
    description: z.string().optional(),
    to: z.string().meta({ description: 'Target format id.', example: 'pdf' }),
    from: z.array(z.string()).optional().meta({ description: 'Source format ids it was checked for.' }),
    options: z
      .record(z.string(), z.unknown())
      .meta({ example: { ocr: true, lang: 'deu+eng', compress: 'ebook', pdfa: '2b' } }),
    merge: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'SavedRecipe', description: 'A recipe kept under an owner token.' });

export type SavedRecipeView = z.infer<typeof savedRecipeSchema>;

export const oneRecipeSchema = z.object({ recipe: savedRecipeSchema });
export const recipeListSchema = z.object({ recipes: z.array(savedRecipeSchema) });
export const recipeNameParam = z.object({
  name: z.string().regex(RECIPE_NAME).meta({ description: 'The recipe name.', example: 'scan-to-archive' }),
});
export const recipeOwnerHeader = z.object({
  'x-owner-token': ownerTokenSchema.optional().meta({
    description: 'The owner token the recipes are kept under; a save without one is answered a new one.',
  }),
});

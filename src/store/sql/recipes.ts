import type { Kysely, Selectable } from 'kysely';
import { FileconvError } from '../../errors/index.js';
import type { RecipeRecord, RecipeStore } from '../types.js';
import type { SqlDialect } from './dialect.js';
import type { RecipesTable, Schema } from './schema.js';

function toRecipe(r: Selectable<RecipesTable>): RecipeRecord {
  return {
    ownerHash: r.owner_hash,
    name: r.name,
    recipe: JSON.parse(r.recipe) as Record<string, unknown>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * Recipes by owner token and name. A save counts and writes in one transaction holding the
 * owner's lock, so two saves at once (on any node) never take an owner past the cap.
 */
export class SqlRecipeStore implements RecipeStore {
  constructor(
    private readonly db: Kysely<Schema>,
    private readonly d: SqlDialect,
  ) {}

  saveRecipe(
    recipe: Omit<RecipeRecord, 'createdAt' | 'updatedAt'>,
    now: number,
    limit: number,
  ): Promise<{ record: RecipeRecord; replaced: boolean }> {
    const { ownerHash, name } = recipe;
    const json = JSON.stringify(recipe.recipe);
    return this.d.transaction(this.db, async (trx) => {
      await this.d.lockKey(trx, `recipes:${ownerHash}`);
      const old = await trx
        .selectFrom('recipes')
        .select('created_at')
        .where('owner_hash', '=', ownerHash)
        .where('name', '=', name)
        .executeTakeFirst();
      if (old) {
        await trx
          .updateTable('recipes')
          .set({ recipe: json, updated_at: now })
          .where('owner_hash', '=', ownerHash)
          .where('name', '=', name)
          .execute();
        return {
          record: { ...recipe, createdAt: old.created_at, updatedAt: now },
          replaced: true,
        };
      }
      const { n } = await trx
        .selectFrom('recipes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_hash', '=', ownerHash)
        .executeTakeFirstOrThrow();
      if (Number(n) >= limit)
        throw new FileconvError(
          'INVALID_REQUEST',
          `This owner token already keeps ${limit} recipes, the most it may: delete one, or replace one by saving under its name.`,
          { extra: { field: 'name' } },
        );
      await trx
        .insertInto('recipes')
        .values({ owner_hash: ownerHash, name, recipe: json, created_at: now, updated_at: now })
        .execute();
      return { record: { ...recipe, createdAt: now, updatedAt: now }, replaced: false };
    });
  }

  async getRecipe(ownerHash: string, name: string): Promise<RecipeRecord | undefined> {
    const row = await this.db
      .selectFrom('recipes')
      .selectAll()
      .where('owner_hash', '=', ownerHash)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toRecipe(row);
  }

  async listRecipes(ownerHash: string): Promise<RecipeRecord[]> {
    const rows = await this.db
      .selectFrom('recipes')
      .selectAll()
      .where('owner_hash', '=', ownerHash)
      .orderBy('name')
      .execute();
    return rows.map(toRecipe);
  }

  async deleteRecipe(ownerHash: string, name: string): Promise<boolean> {
    const { numDeletedRows } = await this.db
      .deleteFrom('recipes')
      .where('owner_hash', '=', ownerHash)
      .where('name', '=', name)
      .executeTakeFirst();
    return numDeletedRows > 0n;
  }
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkRecipe, recipeOptions } from '../../src/core/recipes.js';
import { isFileconvError } from '../../src/errors/index.js';
import { type Catalog, loadCatalog } from '../../src/plan/index.js';

// A recipe is checked against what the installed engines declare when it is saved or loaded,
// for every source it is meant for, not when it first runs.
let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadCatalog();
});

function refusal(raw: unknown): { message: string; option?: unknown; field?: unknown } {
  try {
    checkRecipe(raw, catalog);
  } catch (e) {
    if (!isFileconvError(e)) throw e;
    expect(e.code).toBe('INVALID_REQUEST');
    return { message: e.message, option: e.extra?.option, field: e.extra?.field };
  }
  throw new Error(`accepted: ${JSON.stringify(raw)}`);
}

const examples = join(import.meta.dirname, '../../docs/examples/recipes');

describe('checkRecipe', () => {
  it.each(readdirSync(examples))('accepts the documented example %s', (file) => {
    const raw = JSON.parse(readFileSync(join(examples, file), 'utf8'));
    const recipe = checkRecipe(raw, catalog);
    expect(`${recipe.name}.json`).toBe(file);
    expect(recipe.to).toBe('pdf');
  });

  it('resolves aliases and keeps the options parsed', () => {
    const recipe = checkRecipe({ name: 'photos', to: 'jpeg', options: { quality: 70 } }, catalog);
    expect(recipe).toEqual({ name: 'photos', to: 'jpg', options: { quality: 70 }, merge: false });
    // A run's options go over the recipe's: how a password or another value is given per run.
    expect(recipeOptions(recipe, { quality: 90 })).toEqual({ quality: 90 });
  });

  it('names what is wrong', () => {
    expect(refusal({ name: 'Scan To Archive', to: 'pdf' })).toMatchObject({ field: 'name' });
    expect(refusal({ name: 'x', to: 'nope' })).toMatchObject({
      field: 'to',
      message: /unknown format "nope"/,
    });
    expect(refusal({ name: 'x', to: 'pdf', colour: 'red' })).toMatchObject({ message: /colour/ });
    expect(refusal({ name: 'x', to: 'pdf', options: { colour: 'red' } })).toMatchObject({
      option: 'colour',
      message: 'recipe unknown option colour',
    });
    expect(refusal({ name: 'x', to: 'pdf', options: { rotate: 45 } })).toMatchObject({
      option: 'rotate',
      message: /option rotate must be one of/,
    });
  });

  it('keeps no password', () => {
    for (const name of ['password', 'user_password', 'owner_password'])
      expect(refusal({ name: 'x', to: 'pdf', options: { [name]: 'secret' } })).toMatchObject({
        option: name,
        message: expect.stringMatching(/is a password: a recipe keeps none/),
      });
  });

  it('refuses an option no conversion to the target takes, or one a named source cannot', () => {
    expect(refusal({ name: 'x', to: 'json', options: { watermark: 'DRAFT' } })).toMatchObject({
      option: 'watermark',
      message: 'recipe option watermark applies to no conversion to json',
    });
    // A picture is laid on a page at a resolution; a text file is typeset.
    expect(checkRecipe({ name: 'x', to: 'pdf', from: ['png'], options: { dpi: 300 } }, catalog).to).toBe(
      'pdf',
    );
    expect(refusal({ name: 'x', to: 'pdf', from: ['png', 'txt'], options: { dpi: 300 } })).toMatchObject({
      option: 'dpi',
      message: /^recipe from txt: option dpi does not apply/,
    });
  });
});

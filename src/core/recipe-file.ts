import { readFile, stat } from 'node:fs/promises';
import { FileconvError } from '../errors/index.js';

/** A recipe is a few lines of JSON: anything far larger is not one, and is not read whole. */
const MAX_RECIPE_BYTES = 1024 * 1024;

/**
 * The JSON of a recipe file (`fileconv run`, the stdio MCP server's `recipe` path), not yet
 * checked: checkRecipe does that. Errors name the file as it was given: FILE_NOT_FOUND when it is
 * missing or not a file, INVALID_REQUEST when it is not JSON.
 */
export async function readRecipeFile(path: string, shownAs = path): Promise<unknown> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile())
    throw new FileconvError('FILE_NOT_FOUND', `recipe file ${shownAs} does not exist or is not a file`);
  if (info.size > MAX_RECIPE_BYTES)
    throw new FileconvError(
      'INVALID_REQUEST',
      `recipe file ${shownAs} is ${info.size} bytes: a recipe is a JSON object of at most ${MAX_RECIPE_BYTES} bytes`,
    );
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `recipe file ${shownAs} is not JSON: ${(e as Error).message}`,
      {
        extra: { field: 'recipe' },
      },
    );
  }
}

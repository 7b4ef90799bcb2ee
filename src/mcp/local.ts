import { lstat } from 'node:fs/promises';
import { basename, dirname, extname } from 'node:path';
import { z } from 'zod';
import { convertFile, mergeFiles } from '../core/convert-file.js';
import { readRecipeFile } from '../core/recipe-file.js';
import { checkRecipe, type Recipe, type RecipeInput } from '../core/recipes.js';
import { findPlan } from '../core/submit-conversion.js';
import { detect } from '../detect/index.js';
import { FileconvError, isFileconvError } from '../errors/index.js';
import { extensionOf } from '../formats/index.js';
import { listCatalog, loadCatalog } from '../plan/index.js';
import { MAX_MERGE_INPUTS } from '../run/merge-limits.js';
import type { Roots } from './roots.js';
import { catalogTool, declaredInput, givenFormat, targetOf, targetShape, withRecipe } from './shared.js';
import { defineTool, type Tool } from './tool-kit.js';

const path = z.string().min(1).max(4096);

const stem = (name: string) => basename(name, extname(name)) || 'output';

const taken = (file: string) =>
  lstat(file).then(
    () => true,
    () => false,
  );

/**
 * An output base name in `dir` that names no existing file (nor, for page outputs, its first
 * page): an agent's conversion never writes over a file, the input included; `report_2` instead.
 */
async function freeBase(dir: string, base: string, to: string): Promise<string> {
  const ext = extensionOf(to);
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}_${n}`;
    if (!(await taken(`${dir}/${name}.${ext}`)) && !(await taken(`${dir}/${name}-1.${ext}`))) return name;
  }
}

/** The source and target of a convert call; a catalog key names both. */
async function fromAndTo(args: { to?: string; conversion?: string; from?: string }) {
  const target = targetOf(args);
  const from = givenFormat(args.from);
  if (target.conversion === undefined) return { from, to: target.to! };
  const plan = findPlan(await listCatalog(), target.conversion);
  if (!plan)
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `The conversion "${target.conversion.slice(0, 60)}" is not in the catalog; see the catalog tool.`,
    );
  if (target.to !== undefined && target.to !== plan.to)
    throw new FileconvError(
      'INVALID_REQUEST',
      `to (${target.to}) does not match the conversion ${plan.key}.`,
    );
  return { from: plan.from, to: plan.to };
}

/**
 * A convert call's recipe, checked against the installed engines: a string is the path of its JSON
 * file, judged by the roots as an input is; an object is the recipe itself.
 */
async function recipeOf(roots: Roots, given: string | RecipeInput | undefined): Promise<Recipe | undefined> {
  if (given === undefined) return undefined;
  let raw: unknown = given;
  if (typeof given === 'string') {
    const file = await roots.file(given).catch((e: unknown) => {
      if (!isFileconvError(e)) throw e;
      throw new FileconvError(e.code, `recipe: ${e.message}`, { cause: e, extra: e.extra });
    });
    raw = await readRecipeFile(file, given);
  }
  return checkRecipe(raw, await loadCatalog());
}

/**
 * The tools of `fileconv mcp` over stdio: files by local path, inside the roots only; results
 * written next to the input or into output_dir, and listed by path. They call the same use cases
 * as the CLI and the library (src/core/convert-file.ts).
 */
export async function localTools(roots: Roots): Promise<Tool[]> {
  const detectTool = defineTool({
    name: 'detect',
    title: 'Identify a file',
    description:
      'What a file really is, from its content: its format, media type and confidence, and whether that matches the format its name (or declared) says.',
    input: z.object({
      path: path.describe('The file, absolute or relative to the first allowed folder.'),
      declared: declaredInput,
    }),
    readOnly: true,
    async run(args) {
      const file = await roots.file(args.path);
      const declared = givenFormat(args.declared);
      return { path: file, ...(await detect(file, { filename: basename(args.path), declared })) };
    },
  });

  const convertTool = defineTool({
    name: 'convert',
    title: 'Convert files',
    description:
      'Converts a file (path) to another format with the installed engines, or merges several files (paths, in order) into one (a PDF by default, one bookmark per file). Operations (pages, rotate, compress, ocr, password, watermarks...) are options; a file converted to its own format is operated on. A recipe (its JSON file, or the recipe itself) gives the target and options. Outputs go next to the first input, or into output_dir, never over an existing file; the answer lists their paths.',
    input: z.object({
      path: path.optional().describe('The file to convert.'),
      paths: z
        .array(path)
        .min(2)
        .max(MAX_MERGE_INPUTS)
        .optional()
        .describe('Several files to merge into one, in this order (instead of path).'),
      from: z.string().max(40).optional().describe('The source format, instead of detecting it.'),
      ...(await targetShape()),
      output_dir: path
        .optional()
        .describe('Folder for the outputs (made if missing), inside an allowed folder.'),
    }),
    async run(given, signal) {
      const recipe = await recipeOf(roots, given.recipe);
      const args = withRecipe(
        { ...given, options: given.options as Record<string, unknown> | undefined },
        recipe,
      );
      if ((args.path === undefined) === (args.paths === undefined))
        throw new FileconvError('INVALID_REQUEST', 'Give either path (one file) or paths (files to merge).');
      const merge = args.paths !== undefined;
      // As over HTTP: a recipe says whether it merges, and one checked for one file is not run on several.
      if (merge && recipe && !recipe.merge)
        throw new FileconvError(
          'INVALID_REQUEST',
          `The recipe ${recipe.name} converts one file at a time: give path, or use a recipe with "merge": true for paths.`,
        );
      const { from, to } = await fromAndTo({
        ...args,
        to: args.to ?? (merge && args.conversion === undefined ? 'pdf' : undefined),
      });
      const inputs = [];
      for (const p of args.paths ?? [args.path!])
        inputs.push({ path: await roots.file(p), filename: basename(p) });
      const first = inputs[0]!;
      const outDir =
        args.output_dir === undefined ? dirname(first.path) : await roots.folder(args.output_dir);
      const baseName = await freeBase(
        outDir,
        merge ? `${stem(first.filename)}-merged` : stem(first.filename),
        to,
      );
      const job = { to, options: args.options, outDir, baseName, signal };
      const result = merge
        ? await mergeFiles({ ...job, inputs: inputs.map((i) => ({ ...i, from })) })
        : await convertFile({ ...job, ...first, from });
      return { key: result.key, from: result.from, to: result.to, outputs: result.outputs };
    },
  });

  return [detectTool, convertTool, catalogTool(listCatalog)];
}

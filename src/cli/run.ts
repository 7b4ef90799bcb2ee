import type { Command } from 'commander';
import { readRecipeFile } from '../core/recipe-file.js';
import { checkRecipe, type Recipe } from '../core/recipes.js';
import { closeEngines, loadConverters } from '../engine/registry.js';
import { exitCodeOf } from '../errors/exit-codes.js';
import { isFileconvError } from '../errors/index.js';
import { shownText } from '../intake/untrusted-text.js';
import { buildCatalog, loadCatalog } from '../plan/index.js';
import { errorBody, exitWithUsageCode } from './convert-io.js';
import { runConvert } from './convert-run.js';
import { addRemoteOptions, type RemoteFlags, remoteOf } from './remote.js';

interface RunFlags extends RemoteFlags {
  output?: string;
  option: string[];
  json?: boolean;
  concurrency: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('run')
    .description(
      'Convert files with a recipe: a JSON file naming a target and its options (and whether to merge).',
    )
    .argument(
      '<recipe>',
      'the recipe, a JSON file: {"name", "to", "options"?, "merge"?, "from"?, "description"?}',
    )
    .argument('<inputs...>', 'input files or URLs (- for standard input)')
    .option('-o, --output <path>', 'output file (one input, or a merge) or folder')
    .option(
      '-O, --option <key=value>',
      "an option added to the recipe's, or one of its own given another value; repeatable (a password goes here)",
      collect,
      [],
    )
    .option('--json', 'one JSON result per input per line (also the default when stdout is not a terminal)')
    .option('--concurrency <n>', 'inputs converted at once', '2');
  addRemoteOptions(cmd)
    .addHelpText(
      'after',
      "\nRuns what `fileconv convert INPUTS --to <to> -O <option>... [--merge]` runs with the recipe's target and options.\nExit codes: as convert; a recipe that is not valid exits 2, a missing recipe file 1.",
    )
    .action(async (recipeFile: string, inputs: string[], flags: RunFlags) => {
      process.exitCode = await run(recipeFile, inputs, flags).finally(closeEngines);
    });
  exitWithUsageCode(cmd);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function run(recipeFile: string, inputs: string[], flags: RunFlags): Promise<number> {
  let raw: unknown;
  try {
    raw = await readRecipeFile(recipeFile);
  } catch (e) {
    return refused(undefined, e, flags);
  }
  let recipe: Recipe;
  try {
    recipe = checkRecipe(raw, await catalogFor(flags));
  } catch (e) {
    return refused(recipeFile, e, flags);
  }
  return runConvert(
    inputs,
    {
      to: recipe.to,
      // A merge of one input is that input's conversion, as the API has it.
      merge: recipe.merge && inputs.length > 1,
      output: flags.output,
      option: flags.option,
      json: flags.json,
      concurrency: flags.concurrency,
      server: flags.server,
      key: flags.key,
    },
    { command: 'run', options: recipe.options },
  );
}

/**
 * What the recipe is checked against: this machine's engines; for a run on a server, every engine
 * as declared (this machine may have none of them installed), the server checking the options
 * again against its own.
 */
async function catalogFor(flags: RemoteFlags) {
  let remote = false;
  try {
    remote = remoteOf(flags) !== undefined;
  } catch {
    // A usage error in the server flags is the convert's to report.
  }
  if (!remote) return loadCatalog();
  const engines = await loadConverters();
  return { engines, plans: buildCatalog(engines) };
}

/** A recipe refused before any input is read: its line (with the option or field it got wrong), and its exit code. */
function refused(recipeFile: string | undefined, e: unknown, flags: RunFlags): number {
  const body = errorBody(e);
  const message = shownText(recipeFile === undefined ? body.message : `${recipeFile}: ${body.message}`);
  const named = isFileconvError(e)
    ? Object.fromEntries(Object.entries(e.extra).filter(([k]) => k === 'option' || k === 'field'))
    : {};
  const json = Boolean(flags.json) || !process.stdout.isTTY;
  const line = JSON.stringify({ ok: false, error: { ...body, message, ...named } });
  // With -o - standard output carries the file, so the line goes to standard error, as convert's do.
  if (json && flags.output !== '-') console.log(line);
  else if (json) console.error(line);
  else console.error(`fileconv run: ${message}`);
  return exitCodeOf(body.code);
}

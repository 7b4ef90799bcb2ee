import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import ora, { type Ora } from 'ora';
import { convertFile, mergeFiles } from '../core/convert-file.js';
import { batchExitCode, EXIT, exitCodeOf } from '../errors/exit-codes.js';
import { FileconvError } from '../errors/index.js';
import { extensionOf, resolveFormat } from '../formats/index.js';
import { shownText } from '../intake/untrusted-text.js';
import { fetchToFile } from '../intake/url.js';
import { mapLimit } from '../run/concurrency.js';
import type { Progress } from '../run/types.js';
import { type ConvertFlags, type ConvertSetup, commandLineOptions } from './convert-flags.js';
import {
  type ConvertLine,
  errorBody,
  interruptSignal,
  isUrl,
  outputBaseName,
  resolveTarget,
  sparingInput,
  UsageError,
} from './convert-io.js';
import { mergeCommandLine, mergeTarget } from './convert-merge.js';
import { openStdio, type Stdio } from './convert-stdio.js';
import { type Runner, remoteClient, remoteOf, remoteRunner } from './remote.js';

export type { ConvertFlags, ConvertSetup, OperationFlags } from './convert-flags.js';

/**
 * The convert command's run, from its flags to its exit code: `fileconv convert` and `fileconv
 * run` (a recipe's target and options, src/cli/run.ts) both go through it, so both write the same
 * outputs, print the same lines and exit with the same codes.
 */

/** This machine's engines. */
const LOCAL: Runner = { convertFile, mergeFiles };

/** Where a command's results go, what runs its conversions, and how it was set up. */
interface Context {
  stdio: Stdio;
  runner: Runner;
  setup: ConvertSetup;
}

/**
 * Runs a convert with these inputs and flags, `-` as an input or as -o (convert-stdio.ts) around
 * it; the exit code. Never throws for a refusal: it is printed.
 */
export async function runConvert(args: string[], flags: ConvertFlags, setup: ConvertSetup): Promise<number> {
  let stdio: Stdio;
  try {
    stdio = await openStdio(args, flags.output, flags.from && resolveFormat(flags.from)?.id);
  } catch (e) {
    console.error(`fileconv ${setup.command}: ${(e as Error).message}`);
    return exitCodeOf(errorBody(e).code);
  }
  let runner: Runner = LOCAL;
  try {
    const remote = remoteOf(flags);
    if (remote) runner = remoteRunner(await remoteClient(remote));
  } catch (e) {
    await stdio.cleanup();
    return refused(e, Boolean(flags.json) || !process.stdout.isTTY || stdio.toStdout, stdio, setup);
  }
  const command = flags.merge ? mergeCommand : convertCommand;
  const outputs: string[] = [];
  const code = await command(
    stdio.args,
    { ...flags, output: stdio.output },
    { stdio, runner, setup },
    outputs,
  );
  try {
    if (code === EXIT.OK) await stdio.finish(outputs);
    else await stdio.cleanup();
  } catch (e) {
    console.error(`fileconv ${setup.command}: ${(e as Error).message}`);
    return exitCodeOf(errorBody(e).code);
  }
  return code;
}

async function convertCommand(
  args: string[],
  flags: ConvertFlags,
  { stdio, runner, setup }: Context,
  outputs: string[],
): Promise<number> {
  const json = Boolean(flags.json) || !process.stdout.isTTY || stdio.toStdout;
  let target: ReturnType<typeof resolveTarget>;
  let options: Record<string, unknown>;
  let to: string;
  let from: string | undefined;
  const concurrency = Number(flags.concurrency);
  try {
    target = resolveTarget(args, { to: flags.to, output: flags.output });
    options = await commandLineOptions(flags, setup);
    to = knownFormat(target.to);
    from = flags.from === undefined ? undefined : knownFormat(flags.from);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
      throw new UsageError('--concurrency takes a whole number from 1 to 64');
    }
  } catch (e) {
    return refused(e, json, stdio, setup);
  }

  // A terminal that reports no width (some pseudo-terminals) would make the spinner redraw endlessly.
  const spinnerOk = !json && process.stderr.isTTY && (process.stderr.columns ?? 0) > 0;
  const spinner: Ora | undefined = spinnerOk ? ora({ stream: process.stderr }).start() : undefined;
  const used = new Set<string>();
  const signal = interruptSignal();
  const results = await mapLimit(target.inputs, concurrency, async (input) => {
    const line = await convertOne(input, {
      convertFile: runner.convertFile,
      to,
      from,
      options,
      outDir: target.outDir,
      signal,
      baseName: (name) =>
        uniqueBase(
          sparingInput(outputBaseName(target.outFile, name), target.outDir, extensionOf(to), input),
          used,
        ),
      onProgress: (p) => {
        if (spinner) spinner.text = `${basename(input)}: step ${p.step}/${p.steps} ${p.percent}%`;
      },
    });
    outputs.push(...line.outputs);
    if (json) stdio.print(JSON.stringify(line));
    else report(line, spinner);
    return line;
  });
  spinner?.stop();
  if (signal.aborted) return Number(process.exitCode ?? EXIT.SIGINT);
  return batchExitCode(results);
}

/** `--merge`: every input, in order, into one file; one result line. */
async function mergeCommand(
  args: string[],
  flags: ConvertFlags,
  { stdio, runner, setup }: Context,
  outputs: string[],
): Promise<number> {
  const json = Boolean(flags.json) || !process.stdout.isTTY || stdio.toStdout;
  let job: Omit<Parameters<typeof mergeCommandLine>[1], 'signal' | 'onProgress' | 'merge'>;
  try {
    const target = mergeTarget(args, flags);
    job = {
      ...target,
      to: knownFormat(target.to),
      from: flags.from === undefined ? undefined : knownFormat(flags.from),
      options: await commandLineOptions(flags, setup),
    };
  } catch (e) {
    return refused(e, json, stdio, setup);
  }
  const spinnerOk = !json && process.stderr.isTTY && (process.stderr.columns ?? 0) > 0;
  const spinner: Ora | undefined = spinnerOk ? ora({ stream: process.stderr }).start() : undefined;
  const signal = interruptSignal();
  const line = await mergeCommandLine(args, {
    ...job,
    merge: runner.mergeFiles,
    signal,
    onProgress: (p) => {
      if (spinner) spinner.text = `merging ${args.length} files: step ${p.step}/${p.steps} ${p.percent}%`;
    },
  });
  outputs.push(...line.outputs);
  if (json) stdio.print(JSON.stringify(line));
  else report(line, spinner);
  spinner?.stop();
  if (signal.aborted) return Number(process.exitCode ?? EXIT.SIGINT);
  return line.ok ? EXIT.OK : exitCodeOf(line.error?.code ?? 'CONVERT_FAILED');
}

/** A command refused before any conversion: its error line, and its exit code. */
function refused(e: unknown, json: boolean, stdio: Stdio, setup: ConvertSetup): number {
  const error = errorBody(e);
  if (json) stdio.print(JSON.stringify({ ok: false, error }));
  else console.error(`fileconv ${setup.command}: ${(e as Error).message}`);
  return exitCodeOf(error.code);
}

function knownFormat(name: string): string {
  const f = resolveFormat(name);
  if (!f) throw new UsageError(`unknown format "${name}" (see fileconv catalog)`);
  return f.id;
}

// Two inputs of a batch named alike (a/x.docx, b/x.docx) must not overwrite each other.
function uniqueBase(base: string, used: Set<string>): string {
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
  used.add(name);
  return name;
}

function report(line: ConvertLine, spinner: Ora | undefined): void {
  const shown = line.outputs.map((o) => relative(process.cwd(), o) || o).join(', ');
  const text = shownText(
    line.ok ? `${line.input} -> ${shown}` : `${line.input}: ${line.error?.code} ${line.error?.message}`,
  );
  if (!spinner) {
    if (line.ok) console.log(text);
    else console.error(text);
    return;
  }
  if (line.ok) spinner.succeed(text);
  else spinner.fail(text);
  spinner.start();
}

interface OneJob {
  convertFile: Runner['convertFile'];
  to: string;
  from?: string;
  options: Record<string, unknown>;
  outDir: string;
  signal: AbortSignal;
  baseName: (inputName: string) => string;
  onProgress: (p: Progress) => void;
}

/** Fetches (for a URL), detects and converts one input; never throws. */
async function convertOne(input: string, job: OneJob): Promise<ConvertLine> {
  let fetchDir: string | undefined;
  try {
    let path = input;
    let name = basename(input);
    if (!isUrl(input) && !(await stat(input).catch(() => undefined))?.isFile()) {
      throw new FileconvError('FILE_NOT_FOUND', `${input} does not exist or is not a file.`);
    }
    if (isUrl(input)) {
      fetchDir = await mkdtemp(join(tmpdir(), 'fileconv-fetch-'));
      // The CLI runs on the user's own machine, so private addresses (an intranet) are allowed.
      const fetched = await fetchToFile(input, fetchDir, { allowPrivate: true, signal: job.signal });
      path = fetched.path;
      name = fetched.filename;
    }
    const result = await job.convertFile({
      path,
      filename: name,
      from: job.from,
      to: job.to,
      options: job.options,
      outDir: job.outDir,
      baseName: job.baseName(name),
      signal: job.signal,
      onProgress: job.onProgress,
    });
    return { input, ok: true, outputs: result.outputs, key: result.key };
  } catch (e) {
    return { input, ok: false, outputs: [], error: errorBody(e) };
  } finally {
    if (fetchDir) await rm(fetchDir, { recursive: true, force: true });
  }
}

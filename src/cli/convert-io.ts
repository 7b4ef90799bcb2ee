import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT } from '../errors/exit-codes.js';
import { FileconvError, isFileconvError } from '../errors/index.js';
import { formatFromFilename } from '../formats/index.js';
import { shownText, withoutHiddenCharacters } from '../intake/untrusted-text.js';

/** Usage errors exit 2 (commander's own default is 1). */
export function exitWithUsageCode(cmd: Command): Command {
  return cmd.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT.USAGE));
}

/**
 * An abort signal fired by Ctrl-C or SIGTERM, so running conversions stop their engines and
 * remove their temp folders before the process exits (a second signal exits at once).
 */
export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.SIGINT);
    process.exitCode = name === 'SIGINT' ? EXIT.SIGINT : EXIT.SIGTERM;
    controller.abort();
  };
  // `on`, not `once`: while execa runs a subprocess, its exit hook also listens, and re-raises the
  // signal (killing the process before the engines stop) when it finds itself the only listener.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller.signal;
}

export function isUrl(input: string): boolean {
  return /^https?:\/\//i.test(input);
}

/** One result line of `convert`: an input (or a merge's inputs) and what became of it. */
export interface ConvertLine {
  input: string;
  ok: boolean;
  outputs: string[];
  key?: string;
  error?: { code: string; message: string };
}

export interface ConvertTarget {
  inputs: string[];
  to: string;
  /** An explicit output file (one input only), or undefined. */
  outFile?: string;
  /** The folder outputs go into. */
  outDir: string;
}

/**
 * Reads the positional arguments and `--to`/`-o` into inputs, target and output place.
 *
 * Rule for `convert in.docx out.pdf`: with no `--to` and exactly two arguments, the second is the
 * output file when it is not a URL, does not exist yet, and its extension names a known format;
 * that format is the target. Otherwise every argument is an input and `--to` is required.
 *
 * `-o` is a folder when it exists as one, ends with `/`, or there are several inputs; otherwise it
 * is the output file (pages of a per-page output go next to it as `<name>-1.<ext>`...). Without
 * `-o`, outputs go into the current folder, named after the input.
 */
export function resolveTarget(args: string[], opts: { to?: string; output?: string }): ConvertTarget {
  let inputs = args;
  let to = opts.to;
  let outFile: string | undefined;
  if (!to && args.length === 2 && !opts.output) {
    const candidate = args[1]!;
    const format = formatFromFilename(candidate);
    if (!isUrl(candidate) && !existsSync(candidate) && format) {
      inputs = [args[0]!];
      to = format.id;
      outFile = resolve(candidate);
    }
  }
  if (!to) throw usage('--to FORMAT is required (or give an output file: fileconv convert in.docx out.pdf)');
  if (inputs.length === 0) throw usage('give at least one input file or URL');
  if (opts.output && !outFile) {
    const out = resolve(opts.output);
    const isDir =
      opts.output.endsWith('/') || inputs.length > 1 || (existsSync(out) && statSync(out).isDirectory());
    if (isDir) return { inputs, to, outDir: out };
    outFile = out;
  }
  if (outFile) {
    if (inputs.length > 1) throw usage('-o FILE takes one input; give a folder for several');
    return { inputs, to, outFile, outDir: dirname(outFile) };
  }
  return { inputs, to, outDir: process.cwd() };
}

/** The base name (no extension) an output file gets. */
export function outputBaseName(outFile: string | undefined, inputName: string): string {
  if (outFile) {
    const name = basename(outFile);
    return formatFromFilename(name) ? name.slice(0, -extname(name).length) : name;
  }
  // An input named with hidden characters (a bidirectional override) gives its output a name without them.
  const name = withoutHiddenCharacters(basename(inputName));
  const ext = extname(name);
  return (ext ? name.slice(0, -ext.length) : name) || 'output';
}

/**
 * The base name, unless the output would be the input itself (`a.pdf` operated on in its own
 * folder, with the same format): then `a_2`, so an operation never writes over its source.
 */
export function sparingInput(base: string, outDir: string, ext: string, input: string): string {
  return resolve(outDir, `${base}.${ext}`) === resolve(input) ? `${base}_2` : base;
}

/** Parses `-O key=value` pairs into a raw options object (validated later by the runner). */
export function parseOptionPairs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usage(`-O takes key=value, not "${pair}"`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

function usage(message: string): UsageError {
  return new UsageError(message);
}

/** The error object a JSON result line carries. */
export function errorBody(e: unknown): { code: string; message: string } {
  if (isFileconvError(e)) return { code: e.code, message: shownText(e.message) };
  if (e instanceof UsageError) return { code: 'INVALID_REQUEST', message: shownText(e.message) };
  return { code: 'CONVERT_FAILED', message: new FileconvError('CONVERT_FAILED').message };
}

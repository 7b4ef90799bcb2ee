import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { mergeFiles } from '../core/convert-file.js';
import { FileconvError } from '../errors/index.js';
import { formatFromFilename } from '../formats/index.js';
import { fetchToFile } from '../intake/url.js';
import type { Progress } from '../run/types.js';
import { type ConvertLine, errorBody, isUrl, outputBaseName, UsageError } from './convert-io.js';

/**
 * `fileconv convert a.pdf b.docx c.png --merge -o all.pdf`: the inputs, in order, as one file.
 * The target is --to, else -o's extension, else PDF; the output is -o (a file, or a folder for
 * `merged.pdf`), else `merged.pdf` here.
 */
export function mergeTarget(
  args: readonly string[],
  flags: { to?: string; output?: string },
): { to: string; outDir: string; baseName: string } {
  if (args.length < 2) throw new UsageError('--merge takes at least two inputs');
  const output = flags.output;
  const named = output && !output.endsWith('/') ? formatFromFilename(basename(output)) : undefined;
  const to = flags.to ?? named?.id ?? 'pdf';
  if (!output) return { to, outDir: process.cwd(), baseName: 'merged' };
  if (!named) return { to, outDir: resolve(output), baseName: 'merged' };
  return { to, outDir: dirname(resolve(output)), baseName: outputBaseName(resolve(output), output) };
}

/** Fetches URL inputs into one temp folder, checks files exist, merges; never throws. */
export async function mergeCommandLine(
  args: readonly string[],
  job: {
    to: string;
    from?: string;
    options: Record<string, unknown>;
    outDir: string;
    baseName: string;
    /** The core's mergeFiles, or its remote counterpart (remote.ts). */
    merge: typeof mergeFiles;
    signal: AbortSignal;
    onProgress: (p: Progress) => void;
  },
): Promise<ConvertLine> {
  const input = args.join(' ');
  let fetchDir: string | undefined;
  try {
    const inputs: { path: string; filename: string; from?: string }[] = [];
    for (const arg of args) {
      if (isUrl(arg)) {
        fetchDir ??= await mkdtemp(join(tmpdir(), 'fileconv-fetch-'));
        const dir = await mkdtemp(join(fetchDir, 'input-'));
        // The CLI runs on the user's own machine, so private addresses (an intranet) are allowed.
        const fetched = await fetchToFile(arg, dir, { allowPrivate: true, signal: job.signal });
        inputs.push({ path: fetched.path, filename: fetched.filename, from: job.from });
        continue;
      }
      if (!(await stat(arg).catch(() => undefined))?.isFile())
        throw new FileconvError('FILE_NOT_FOUND', `${arg} does not exist or is not a file.`);
      inputs.push({ path: arg, filename: basename(arg), from: job.from });
    }
    const { merge, ...rest } = job;
    const result = await merge({ ...rest, inputs });
    return { input, ok: true, outputs: result.outputs, key: result.key };
  } catch (e) {
    return { input, ok: false, outputs: [], error: errorBody(e) };
  } finally {
    if (fetchDir) await rm(fetchDir, { recursive: true, force: true });
  }
}

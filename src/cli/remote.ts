import { join } from 'node:path';
import type { Command } from 'commander';
import type { Artifact, FileconvClient, Request } from '../client/index.js';
import type { ConvertFileJob, ConvertFileResult, MergeFilesJob } from '../core/convert-file.js';
import { sourceFormat } from '../core/source-format.js';
import { FileconvError } from '../errors/index.js';
import { extensionOf } from '../formats/index.js';
import type { Progress } from '../run/types.js';
import { UsageError } from './convert-io.js';

/**
 * `--server URL --key KEY` (or FILECONV_SERVER and FILECONV_KEY): `convert`, `detect` and
 * `catalog` ask a fileconv server instead of this machine's engines, with the same flags, outputs
 * and exit codes (docs/cli.md, "Running on a server").
 */
export interface RemoteFlags {
  server?: string;
  key?: string;
}

export function addRemoteOptions(cmd: Command): Command {
  return cmd
    .option('--server <url>', 'run on this fileconv server instead of here (env FILECONV_SERVER)')
    .option('--key <key>', 'the API key for --server (env FILECONV_KEY)');
}

/** The server to use, from the flags, else the environment; undefined for a local run (createClient checks the URL). */
export function remoteOf(flags: RemoteFlags): { server: string; key?: string } | undefined {
  const server = flags.server ?? (process.env.FILECONV_SERVER || undefined);
  const key = flags.key ?? (process.env.FILECONV_KEY || undefined);
  if (!server) {
    if (flags.key !== undefined) throw new UsageError('--key goes with --server (or FILECONV_SERVER)');
    return undefined;
  }
  return { server, key };
}

/** Loads the client only for a remote run: a local one never needs it. */
export async function remoteClient(remote: { server: string; key?: string }): Promise<FileconvClient> {
  const { createClient } = await import('../client/index.js');
  return createClient(remote);
}

/** What the convert command runs: the core's convertFile and mergeFiles, or these over HTTP. */
export interface Runner {
  convertFile(job: ConvertFileJob): Promise<ConvertFileResult>;
  mergeFiles(job: MergeFilesJob): Promise<ConvertFileResult>;
}

/** The convert command's runner against a server: upload, long-poll, download to the local names. */
export function remoteRunner(client: FileconvClient): Runner {
  async function run(
    inputs: { path: string; filename: string }[],
    job: Omit<ConvertFileJob, 'path' | 'filename'>,
  ): Promise<ConvertFileResult> {
    const { options, stamp, certificate } = optionParts((job.options ?? {}) as Record<string, unknown>);
    const done = await client.convert(
      inputs.map((i) => i.path),
      {
        filename: inputs.map((i) => i.filename),
        to: job.to,
        from: job.from,
        options,
        stamp,
        certificate,
        signal: job.signal,
        onStatus: (r) => job.onProgress?.(r.progress as Progress),
      },
    );
    const outputs: string[] = [];
    const artifacts = deliverable(done, job.to);
    const ext = extensionOf(job.to);
    for (const [i, artifact] of artifacts.entries()) {
      const name = artifacts.length > 1 ? `${job.baseName}-${i + 1}.${ext}` : `${job.baseName}.${ext}`;
      outputs.push(await client.download(artifact, join(job.outDir, name), { signal: job.signal }));
    }
    const key = done.conversion ?? `${job.from ?? 'merge'}-${job.to}`;
    const from = key.endsWith(`-${job.to}`) ? key.slice(0, -job.to.length - 1) : (job.from ?? '');
    return { from, to: job.to, key, outputs };
  }
  return {
    // An upload names its conversion: the source format is found here by the rule a local run uses.
    convertFile: async (job) =>
      run([{ path: job.path, filename: job.filename }], {
        ...job,
        from: job.from ?? (await sourceFormat(job.path, job.filename)),
      }),
    mergeFiles: (job) => run([...job.inputs], { ...job, from: job.inputs[0]?.from }),
  };
}

/**
 * The artifacts that are the outputs a local run writes: the one named by the target, or its
 * pages (`png-1`, `png-2`...) in order, without the `zip` that holds them all.
 */
function deliverable(done: Request, to: string): Artifact[] {
  const artifacts = done.artifacts ?? [];
  const one = artifacts.find((a) => a.name === to);
  if (one) return [one];
  const page = (a: Artifact) => Number(a.name.slice(to.length + 1));
  const pages = artifacts.filter((a) => a.name.startsWith(`${to}-`) && page(a) > 0);
  if (pages.length === 0) throw new FileconvError('CONVERT_FAILED', 'The server sent no output.');
  return pages.sort((a, b) => page(a) - page(b));
}

const STAMP_EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
};

/**
 * `--stamp-image` and `--sign-certificate` become the options stamp_image and sign_certificate
 * (data: URLs) on the command line; the API takes those files as its `stamp` and `certificate`
 * parts instead, since a meta field holds at most 64 KiB.
 */
function optionParts(all: Record<string, unknown>): {
  options: Record<string, unknown>;
  stamp?: { input: Uint8Array; filename: string };
  certificate?: { input: Uint8Array; filename: string };
} {
  const { stamp_image: picture, sign_certificate: p12, ...options } = all;
  const dataUrl = (v: unknown) => (typeof v === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(v) : null);
  const m = dataUrl(picture);
  const ext = m ? STAMP_EXTENSIONS[m[1]!] : undefined;
  const c = dataUrl(p12);
  return {
    options: {
      ...options,
      ...(picture !== undefined && !ext && { stamp_image: picture }),
      ...(p12 !== undefined && !c && { sign_certificate: p12 }),
    },
    ...(m && ext && { stamp: { input: Buffer.from(m[2]!, 'base64'), filename: `stamp.${ext}` } }),
    ...(c && { certificate: { input: Buffer.from(c[2]!, 'base64'), filename: 'certificate.p12' } }),
  };
}

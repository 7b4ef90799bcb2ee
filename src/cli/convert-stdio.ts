import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { extensionOf } from '../formats/index.js';
import { UsageError } from './convert-io.js';

/**
 * `-` on the command line: as an input, standard input (kept in a temp file, its format detected
 * from its bytes unless --from names it); as `-o -`, standard output, where one output results.
 * Result lines then go to standard error, so standard output carries the file alone.
 */
export interface Stdio {
  /** The arguments with `-` replaced by the temp file holding standard input. */
  args: string[];
  /** `-o` as the command should read it (a temp folder when the output is standard output). */
  output: string | undefined;
  /** The output goes to standard output. */
  toStdout: boolean;
  /** Prints a result line where it belongs (stdout, or stderr when stdout carries the file). */
  print(text: string): void;
  /** Sends the one output to standard output (a usage error for several), then removes the temp files. */
  finish(outputs: readonly string[]): Promise<void>;
  cleanup(): Promise<void>;
}

export async function openStdio(
  args: readonly string[],
  output: string | undefined,
  from?: string,
): Promise<Stdio> {
  const dashes = args.filter((a) => a === '-').length;
  if (dashes > 1) throw new UsageError('standard input (-) can be read once');
  const toStdout = output === '-';
  const dir = dashes > 0 || toStdout ? await mkdtemp(join(tmpdir(), 'fileconv-stdio-')) : undefined;
  const cleanup = async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  try {
    let stdinPath: string | undefined;
    if (dashes > 0 && dir) {
      stdinPath = join(dir, from ? `stdin.${extensionOf(from)}` : 'stdin');
      await pipeline(process.stdin, createWriteStream(stdinPath));
    }
    const outDir = toStdout && dir ? join(dir, 'out/') : undefined;
    return {
      args: args.map((a) => (a === '-' && stdinPath ? stdinPath : a)),
      output: outDir ?? output,
      toStdout,
      print: (text) => (toStdout ? console.error(text) : console.log(text)),
      async finish(outputs) {
        try {
          if (!toStdout || outputs.length === 0) return;
          if (outputs.length > 1)
            throw new UsageError(`the conversion wrote ${outputs.length} files; give -o FOLDER, not -o -`);
          await pipeline(createReadStream(outputs[0]!), process.stdout);
        } finally {
          await cleanup();
        }
      },
      cleanup,
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

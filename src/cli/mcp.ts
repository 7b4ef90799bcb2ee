import type { Command } from 'commander';
import { exitCodeOf } from '../errors/exit-codes.js';
import { isFileconvError } from '../errors/index.js';
import { serveStdio } from '../mcp/index.js';
import { exitWithUsageCode } from './convert-io.js';

export function register(program: Command): void {
  const cmd = program
    .command('mcp')
    .description(
      'Serve detect, convert and catalog to an AI agent host over stdio (Model Context Protocol); see docs/mcp.md.',
    )
    .option(
      '--root <folder>',
      'a folder whose files the tools may read and write, repeatable (default: the current folder)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (flags: { root: string[] }) => {
      try {
        await serveStdio({ roots: flags.root.length > 0 ? flags.root : [process.cwd()] });
      } catch (e) {
        if (!isFileconvError(e)) throw e;
        process.stderr.write(`fileconv mcp: ${e.message}\n`);
        process.exitCode = exitCodeOf(e.code);
      }
    });
  exitWithUsageCode(cmd);
}

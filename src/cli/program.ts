import { Command } from 'commander';
import { packageVersion } from '../engine/package-files.js';

interface CommandModule {
  register(program: Command): void;
}

// Each subcommand lives in its own module and registers itself. Only the one being run is loaded:
// start-up is the speed of a CLI called once per file, and `detect` needs no engines, server or
// database driver.
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  detect: () => import('./detect.js'),
  convert: () => import('./convert.js'),
  run: () => import('./run.js'),
  catalog: () => import('./catalog.js'),
  doctor: () => import('./doctor.js'),
  serve: () => import('./serve.js'),
  keys: () => import('./keys.js'),
  worker: () => import('./worker.js'),
  mcp: () => import('./mcp.js'),
};

const version = packageVersion();
const program = new Command()
  .name('fileconv')
  .description('Identify files and convert them between formats with real engines.')
  .version(version);

const first = process.argv[2] ?? '';
const needed = Object.hasOwn(COMMANDS, first)
  ? [first]
  : ['-V', '--version'].includes(first)
    ? []
    : Object.keys(COMMANDS); // help, or an unknown command that commander explains
for (const name of needed) (await COMMANDS[name]!()).register(program);

await program.parseAsync(process.argv);

import { Command } from 'commander';
import * as catalog from './catalog.js';
import * as convert from './convert.js';
import * as detect from './detect.js';
import * as doctor from './doctor.js';
import * as keys from './keys.js';
import * as serve from './serve.js';

const program = new Command()
  .name('fileconv')
  .description('Identify files and convert them between formats with real engines.')
  .version('0.1.0');

// Each subcommand lives in its own module and registers itself here.
const modules = [detect, convert, catalog, doctor, serve, keys] as Array<{
  register(program: Command): void;
}>;
for (const m of modules) m.register(program);

await program.parseAsync(process.argv);

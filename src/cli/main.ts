import { Command } from 'commander';

const program = new Command()
  .name('fileconv')
  .description('Identify files and convert them between formats with real engines.')
  .version('0.1.0');

// Each subcommand lives in its own module and registers itself here.
const modules = [] as Array<{ register(program: Command): void }>;
for (const m of modules) m.register(program);

await program.parseAsync(process.argv);

// The `fileconv detect` program on its own (see main.ts): the same command as in the full program.
import { Command } from 'commander';
import { register } from './detect.js';

const program = new Command().name('fileconv');
register(program);
await program.parseAsync(process.argv);

// The `fileconv detect` program on its own (see main.ts): the same command as in the full program.
import { setFlagsFromString } from 'node:v8';
import { Command } from 'commander';
import { register } from './detect.js';

/**
 * Up to this many files, V8's optimizing compiler costs more than it saves: its compilations
 * of the sniffers run on a second thread and are barely used before the process exits. Measured
 * (docs/performance.md): 17 % less CPU over 522 files, a third less over 4,350, even at 17,400.
 */
const UNOPTIMIZED_UP_TO = 10_000;

if (process.argv.length - 3 <= UNOPTIMIZED_UP_TO) setFlagsFromString('--no-opt');
const program = new Command().name('fileconv');
register(program);
await program.parseAsync(process.argv);

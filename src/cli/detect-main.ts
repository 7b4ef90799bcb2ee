// The `fileconv detect` program on its own (see main.ts): the same command as in the full program.
import { setFlagsFromString } from 'node:v8';
import { Command } from 'commander';
import { register } from './detect.js';

/**
 * Up to this many files, V8's optimizing compiler costs more than it saves: its compilations
 * of the sniffers run on a second thread and are barely used before the process exits. Where it
 * pays back depends on how much text is sniffed (docs/performance.md): on the detection fixtures
 * (a few hundred bytes each) not even at 17,400 files; on the real-world corpus between 1,000
 * files (a third less CPU without it) and 1,800 (8 % more), and at 3,252 files 14 % more.
 */
const UNOPTIMIZED_UP_TO = 1_500;

if (process.argv.length - 3 <= UNOPTIMIZED_UP_TO) setFlagsFromString('--no-opt');
const program = new Command().name('fileconv');
register(program);
await program.parseAsync(process.argv);

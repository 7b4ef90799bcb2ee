// Plays a server or worker told to stop while one of its subprocesses runs (test/cli/signals.test.ts).
import { execa } from 'execa';
import { stopOnSignals } from '../../../src/cli/serve.js';

stopOnSignals(async () => {
  await new Promise((resolve) => setTimeout(resolve, 300));
  console.log('shut down');
});
execa('sleep', ['30']).catch(() => {});
console.log('ready');
setTimeout(() => {}, 60_000);

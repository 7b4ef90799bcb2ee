// Plays `fileconv convert` interrupted while an engine runs (test/cli/signals.test.ts).
import { execa } from 'execa';
import { interruptSignal } from '../../../src/cli/convert-io.js';

const signal = interruptSignal();
const engine = execa('sleep', ['30'], { cancelSignal: signal });
console.log('ready');
await engine.catch(() => {});
console.log('aborted', signal.aborted);

// From a source checkout the worker is TypeScript: register tsx in this thread, then load it.
// A build runs dist/converters/data/worker.js directly and never reads this file.
import { register } from 'tsx/esm/api';

register();
const { default: runDataTask } = await import('./worker.ts');
export default runDataTask;

// From a source checkout the worker is TypeScript: register tsx in this thread, then load it.
// A build runs dist/detect/worker.js directly and never reads this file.
// No transform cache: it would be a folder in the temp dir that outlives the server.
process.env.TSX_DISABLE_CACHE = '1';
const { register } = await import('tsx/esm/api');

register();
const { default: runDetectTask } = await import('./worker.ts');
export default runDetectTask;

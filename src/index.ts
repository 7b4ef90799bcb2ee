// The library API: what `import ... from 'fileconv'` gives (docs/library.md).

export type { DetectReport } from './detect/index.js';
export type * from './engine/contract.js';
export { closeEngines } from './engine/registry.js';
export * from './errors/index.js';
export * from './formats/index.js';
export {
  type CatalogEntry,
  type ConvertOptions,
  type ConvertResult,
  catalog,
  convert,
  type DetectOptions,
  detect,
  type FileInput,
} from './lib/local.js';
export {
  createApp,
  createServer,
  type FileconvApp,
  type FileconvServer,
  type ServiceOptions,
} from './lib/server.js';
export type * from './plan/types.js';
export type * from './run/types.js';

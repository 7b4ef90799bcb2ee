export type * from './engine/contract.js';
export * from './errors/index.js';
export * from './formats/index.js';
export type * from './run/types.js';

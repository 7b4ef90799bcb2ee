export * from './client-ip.js';
export * from './headers.js';
export * from './keys.js';
export * from './quota.js';
export * from './ratelimit.js';

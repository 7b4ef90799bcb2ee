import { readdirSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Converters are discovered at run time from dist/converters, so each one is its own entry.
const converterEntries = Object.fromEntries(
  readdirSync('converters')
    .filter((f) => f.endsWith('.ts') && !f.includes('.test.') && !f.startsWith('_'))
    .map((f) => [`converters/${f.replace(/\.ts$/, '')}`, `converters/${f}`]),
);

export default defineConfig({
  entry: { cli: 'src/cli/main.ts', index: 'src/index.ts', ...converterEntries },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  sourcemap: true,
  clean: true,
  dts: false,
});

import { defineConfig } from 'tsup';

// `fileconv detect` as one file with its libraries inside (see src/cli/main.ts): node's ESM loader
// resolves each module in node_modules through package.json lookups and realpath calls, which cost
// more than the whole detection of a few hundred files. Runs after the main build (no clean).
export default defineConfig({
  entry: { 'detect-main': 'src/cli/detect-main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  noExternal: [/.*/],
  splitting: false,
  sourcemap: true,
  clean: false,
  // Bundled CommonJS libraries (commander, papaparse) require node's built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
});

import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Converters are discovered at run time from dist/converters, so each one is its own entry.
const converterEntries = Object.fromEntries(
  readdirSync('converters')
    .filter((f) => f.endsWith('.ts') && !f.includes('.test.') && !f.startsWith('_'))
    .map((f) => [`converters/${f.replace(/\.ts$/, '')}`, `converters/${f}`]),
);
// A converter that runs on worker threads keeps its worker module in its folder: converters/<name>/worker.ts.
const workerEntries = Object.fromEntries(
  readdirSync('converters', { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(`converters/${d.name}/worker.ts`))
    .map((d) => [`converters/${d.name}/worker`, `converters/${d.name}/worker.ts`]),
);

/** The converters' files that are not TypeScript (the UNO bridge, ImageMagick's policy). */
const RUNTIME_FILE = /\.(py|xml)$/;

export default defineConfig({
  entry: {
    cli: 'src/cli/main.ts',
    index: 'src/index.ts',
    // `fileconv/client`, the typed HTTP client (docs/library.md).
    client: 'src/client/index.ts',
    // The server's detection thread (src/detect/pool.ts).
    'detect/worker': 'src/detect/worker.ts',
    ...converterEntries,
    ...workerEntries,
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  sourcemap: true,
  clean: true,
  dts: { entry: { index: 'src/index.ts', client: 'src/client/index.ts' } },
  // An installed package ships dist/ only: its runtime files go where dist/ looks for them.
  onSuccess: async () => {
    cpSync('converters', 'dist/converters', {
      recursive: true,
      filter: (src) => statSync(src).isDirectory() || RUNTIME_FILE.test(src),
    });
  },
});

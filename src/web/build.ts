// Bundles the web page: src/web/app.ts becomes app.js, index.html and style.css are copied.
// Run after tsup (which empties dist/): `tsx src/web/build.ts` writes dist/web/.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export interface WebAsset {
  body: Buffer;
  type: string;
}

const sourceDir = dirname(fileURLToPath(import.meta.url));

export const WEB_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
} as const;

/** Builds the page in memory; the keys are file names (index.html, app.js, style.css). */
export async function bundleWeb(): Promise<Map<keyof typeof WEB_FILES, WebAsset>> {
  const result = await build({
    entryPoints: [join(sourceDir, 'app.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    write: false,
    outfile: 'app.js',
    logLevel: 'silent',
  });
  const script = result.outputFiles[0];
  if (!script) throw new Error('esbuild produced no output for the web page');
  return new Map<keyof typeof WEB_FILES, WebAsset>([
    ['index.html', { body: await readFile(join(sourceDir, 'index.html')), type: WEB_FILES['index.html'] }],
    ['app.js', { body: Buffer.from(script.contents), type: WEB_FILES['app.js'] }],
    ['style.css', { body: await readFile(join(sourceDir, 'style.css')), type: WEB_FILES['style.css'] }],
  ]);
}

export async function writeWeb(outDir: string): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const [name, asset] of await bundleWeb()) {
    await writeFile(join(outDir, name), asset.body);
    written.push(join(outDir, name));
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const outDir = resolve(sourceDir, '..', '..', 'dist', 'web');
  const written = await writeWeb(outDir);
  console.log(`web page built: ${written.length} files in ${outDir}`);
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package root: the nearest folder above this module holding fileconv's package.json. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'fileconv') {
      root = dir;
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('fileconv package root not found');
    dir = up;
  }
}

/** fileconv's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** True when this code runs from the TypeScript sources (a checkout through tsx), not from dist/. */
export const runningFromSource = import.meta.url.endsWith('.ts');

/**
 * Where the converters' own files live: converters/ in a source checkout, dist/converters/ when
 * built. The build copies the files that are not TypeScript (the UNO bridge, ImageMagick's
 * policy) there, so an installed package, which ships dist/ only, finds them.
 */
export function convertersDir(...parts: string[]): string {
  return join(packageRoot(), runningFromSource ? 'converters' : join('dist', 'converters'), ...parts);
}

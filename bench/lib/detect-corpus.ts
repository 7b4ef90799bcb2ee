import { copyFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The detection fixtures the start-up and detect benches copy into their batches. */
export const DETECT_FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'detect');

/** Every fixture file under `dir` (not the expectations or READMEs beside them). */
export function fixtureFiles(dir = DETECT_FIXTURES): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return fixtureFiles(path);
    return /^expected(-[a-z]+)?\.json$/.test(e.name) || e.name === 'README.md' ? [] : [path];
  });
}

/** `copies` copies of every fixture in `dir`, under names of their own; returns their paths. */
export function copyFixtures(dir: string, copies: number): string[] {
  const files: string[] = [];
  const sources = fixtureFiles();
  for (let copy = 0; copy < copies; copy++) {
    for (const [i, src] of sources.entries()) {
      const path = join(dir, `${copy}-${i}-${basename(src)}`);
      copyFileSync(src, path);
      files.push(path);
    }
  }
  return files;
}

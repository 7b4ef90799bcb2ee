import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** First of `names` found as an executable on PATH (absolute names are checked as they are). */
export function findBinary(names: readonly string[]): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of names) {
    const candidates = name.includes('/') ? [name] : dirs.map((d) => join(d, name));
    for (const c of candidates) {
      try {
        accessSync(c, constants.X_OK);
        return c;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

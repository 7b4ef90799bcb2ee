import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'detect');

/**
 * Fixture path (relative to the fixture folder) -> the canonical id its bytes must be detected as:
 * `expected.json` and one `expected-FAMILY.json` for each family of formats added later.
 */
export const EXPECTED: Record<string, string> = Object.assign(
  {},
  ...readdirSync(FIXTURES)
    .filter((name) => /^expected(-[a-z]+)?\.json$/.test(name))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'))),
);

export const fixture = (name: string) => join(FIXTURES, name);

/**
 * A writer of files under the names a user would give them (each in a folder of its own, so
 * names may repeat), in a temp folder removed after the test file.
 */
export function namedFileWriter(prefix: string): (name: string, bytes: string | Buffer) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return (name, bytes) => {
    const sub = join(dir, String(n++));
    mkdirSync(sub);
    writeFileSync(join(sub, name), bytes);
    return join(sub, name);
  };
}

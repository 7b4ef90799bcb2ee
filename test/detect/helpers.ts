import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'detect');

/** Fixture path (relative to the fixture folder) -> the canonical id its bytes must be detected as. */
export const EXPECTED: Record<string, string> = JSON.parse(
  readFileSync(join(FIXTURES, 'expected.json'), 'utf8'),
);

export const fixture = (name: string) => join(FIXTURES, name);

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderFormatsDoc } from '../../src/docs/formats.js';
import { FORMATS } from '../../src/formats/index.js';

const root = join(import.meta.dirname, '..', '..');

describe('docs/formats.md', () => {
  it('is exactly what the registry renders (regenerate with npm run docs)', () => {
    expect(readFileSync(join(root, 'docs', 'formats.md'), 'utf8')).toBe(renderFormatsDoc());
  });

  it('has a row for every format', () => {
    const doc = renderFormatsDoc();
    for (const f of FORMATS) expect(doc).toContain(`| \`${f.id}\` | ${f.name.replace(/\|/g, '\\|')} |`);
  });
});

describe('docs/cli.md', () => {
  it('documents fileconv detect and its options and exit codes', () => {
    const doc = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
    for (const s of ['fileconv detect', '--json', '--declared', '--strict', 'Exit codes'])
      expect(doc).toContain(s);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderFontsDoc } from '../../src/docs/fonts.js';
import { FONT_PACKAGES, replacementPairs } from '../../src/fonts/catalog.js';

const root = join(import.meta.dirname, '..', '..');

describe('docs/fonts.md', () => {
  it('is exactly what the font tables render (regenerate with npm run docs)', () => {
    expect(readFileSync(join(root, 'docs', 'fonts.md'), 'utf8')).toBe(renderFontsDoc());
  });

  it('names every package and every replaced font', () => {
    const doc = renderFontsDoc();
    for (const p of FONT_PACKAGES) expect(doc).toContain(`\`${p.package}\``);
    for (const [font] of replacementPairs()) expect(doc).toContain(font);
  });
});

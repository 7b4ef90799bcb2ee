// Markdown and HTML to DOCX: code in a real monospace font, tables with rules, math as Office
// math. A web page comes in through Writer's HTML import; Markdown through pandoc's ODT, as the
// catalog's md-docx chain does.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE_FONT } from '../../converters/libreoffice/html-word.js';
import libreoffice from '../../converters/libreoffice.js';
import pandoc from '../../converters/pandoc.js';
import { convert } from '../../src/index.js';
import { loadCatalog, planConversion } from '../../src/plan/index.js';
import { convertWith, fileScopedDir, zipEntries } from '../helpers/office.js';

const tmp = fileScopedDir('fileconv-word-markup-');
afterAll(() => tmp.cleanup());

describe('markup to docx', () => {
  it('names one installed monospace font for code and rules every table cell', {
    timeout: 180_000,
  }, async () => {
    const md = join(tmp.dir, 'notes.md');
    writeFileSync(md, '# Tides\n\n```\nlet tide = 4;\n```\n\n| port | depth |\n|---|---|\n| Dover | 12 |\n');
    const page = await convertWith(pandoc, 'md', 'html', md);
    expect(page.files[0]).toBeDefined();
    const { files } = await convertWith(libreoffice, 'html', 'docx', page.files[0]!);
    const parts = await zipEntries(files[0]!);
    const xml = `${parts.get('word/styles.xml')}${parts.get('word/document.xml')}`;
    const fonts = [...xml.matchAll(/w:rFonts w:ascii="([^"]*)"/g)].map((m) => m[1]);
    expect(fonts).toContain(CODE_FONT);
    expect(fonts.filter((f) => /Menlo|monospace/.test(f!))).toEqual([]);
    const doc = parts.get('word/document.xml')!.toString();
    expect(doc).toContain('let tide');
    const cell = /<w:tc>[\s\S]*?Dover/.exec(doc)?.[0] ?? '';
    expect(cell).toMatch(/<w:tcBorders>[\s\S]*?<w:(top|bottom) w:val="(single|double)"/);
  });

  it('writes Markdown math as Office math with its limits, notes as Word notes, tables ruled', {
    timeout: 240_000,
  }, async () => {
    const { engines } = await loadCatalog();
    const plan = planConversion('md', 'docx', engines);
    expect(plan?.steps.map((s) => `${s.from}>${s.to}`)).toEqual(['md>odt', 'odt>docx']);
    const md = join(tmp.dir, 'tides.md');
    writeFileSync(
      md,
      [
        '# Tides',
        '',
        'The height is $h = a \\sin(\\omega t)$ at Dover.[^1]',
        '',
        '$$\\int_0^{T} h\\,dt = 0 \\qquad \\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}$$',
        '',
        '| port | depth |',
        '|---|---|',
        '| Dover | 12 |',
        '',
        '[^1]: Measured at the pier.',
        '',
      ].join('\n'),
    );
    const out = join(tmp.dir, 'tides.docx');
    await convert(md, { to: 'docx', output: out });
    const parts = await zipEntries(out);
    const doc = parts.get('word/document.xml')!.toString();
    // Office math: two formulas, the integral an n-ary operator with both limits, the sum too.
    expect(doc.match(/<m:oMath\b/g)?.length).toBe(2);
    const limits = [
      ...doc.matchAll(
        /<m:nary>[\s\S]*?<m:chr m:val="(.)"\/>[\s\S]*?<m:sub>([\s\S]*?)<\/m:sub><m:sup>([\s\S]*?)<\/m:sup>/g,
      ),
    ].map((m) => [m[1], text(m[2]!), text(m[3]!)]);
    expect(limits).toEqual([
      ['∫', '0', 'T'],
      ['∑', 'k=1', 'n'],
    ]);
    expect(doc).toContain('w:footnoteReference');
    expect(parts.get('word/footnotes.xml')?.toString()).toContain('Measured at the pier.');
    const cell = /<w:tc>[\s\S]*?Dover/.exec(doc)?.[0] ?? '';
    expect(cell).toMatch(/<w:tcBorders>[\s\S]*?<w:(top|bottom) w:val="(single|double)"/);
    // pandoc's DOCX reader, which is not the writer, reads the Office math back as TeX.
    const read = execFileSync('pandoc', ['--sandbox', '-f', 'docx', '-t', 'plain', out], {
      encoding: 'utf8',
    });
    expect(read).toMatch(/Dover/);
    expect(read).toMatch(/Measured at the pier/);
    const math = read.replace(/\s+/g, '');
    expect(math).toContain('h=asin(ωt)');
    expect(math).toContain('\\int_{0}^{T}');
    expect(math).toContain('\\sum_{k=1}^{n}');
  });
});

/** The text of OMML runs. */
function text(omml: string): string {
  return [...omml.matchAll(/<m:t[^>]*>([^<]*)<\/m:t>/g)].map((m) => m[1]).join('');
}

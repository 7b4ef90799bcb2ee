// Markdown and HTML to DOCX: code in a real monospace font, tables with rules. pandoc makes the
// page, LibreOffice the Word file, as the catalog's md-docx chain does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE_FONT } from '../../converters/libreoffice/html-word.js';
import libreoffice from '../../converters/libreoffice.js';
import pandoc from '../../converters/pandoc.js';
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
});

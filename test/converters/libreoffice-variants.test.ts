import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import libreoffice from '../../converters/libreoffice.js';
import { detectFile } from '../../src/detect/index.js';
import { convertWith, pdfText, zipEntries } from '../helpers/office.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'detect', 'documents');

/** Converts a fixture and returns the one output, after checking nothing else was left behind. */
async function convert(from: string, to: string, fixture: string): Promise<string> {
  const { files, leftover } = await convertWith(libreoffice, from, to, join(FIXTURES, fixture), {});
  expect(leftover).toEqual([]);
  expect(files).toHaveLength(1);
  return files[0] as string;
}

async function partText(path: string, part: string): Promise<string> {
  return (await zipEntries(path)).get(part)?.toString('utf8') ?? '';
}

describe('libreoffice: macro-enabled OOXML and flat ODF', () => {
  it('declares each variant to PDF and its OOXML and ODF counterparts, and from the format it varies', () => {
    const pairs = new Set(libreoffice.edges.map((e) => `${e.from}-${e.to}`));
    for (const pair of [
      'docm-pdf',
      'docm-docx',
      'docm-odt',
      'xlsm-xlsx',
      'pptm-pptx',
      'fodt-docx',
      'fods-xlsx',
      'fodp-pptx',
      'docx-docm',
      'odt-fodt',
    ])
      expect(pairs).toContain(pair);
  });

  it('converts a docm to docx and PDF with its words', async () => {
    const docx = await convert('docm', 'docx', 'report.docm');
    expect((await detectFile(docx)).id).toBe('docx');
    expect(await partText(docx, 'word/document.xml')).toContain('Sales rose in the north.');
    const pdf = await convert('docm', 'pdf', 'report.docm');
    expect(pdfText(pdf)).toContain('Quarterly report');
  });

  it.each([
    ['xlsm', 'sheet.xlsm', 'xlsx', 'xl/sharedStrings.xml', 'north'],
    ['fods', 'sheet.fods', 'xlsx', 'xl/sharedStrings.xml', 'north'],
    ['pptm', 'slides.pptm', 'pptx', 'ppt/slides/slide1.xml', 'Roadmap'],
    ['fodp', 'slides.fodp', 'pptx', 'ppt/slides/slide1.xml', 'Roadmap'],
  ])('converts %s (%s) to %s with its content', async (from, fixture, to, part, words) => {
    const out = await convert(from, to, fixture);
    expect((await detectFile(out)).id).toBe(to);
    expect(await partText(out, part)).toContain(words);
  });

  it('converts a flat ODT to docx, and writes a docm from a docx', async () => {
    const docx = await convert('fodt', 'docx', 'report.fodt');
    expect(await partText(docx, 'word/document.xml')).toContain('Sales rose in the north.');
    const { files } = await convertWith(
      libreoffice,
      'docx',
      'docm',
      join(FIXTURES, '..', 'document.docx'),
      {},
    );
    const docm = files[0] as string;
    expect((await detectFile(docm)).id).toBe('docm');
    expect(readFileSync(docm).subarray(0, 2).toString('latin1')).toBe('PK');
  });
});

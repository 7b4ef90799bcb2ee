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

  it('converts an xlsm and a flat ODS to xlsx with their cells', async () => {
    for (const [from, fixture] of [
      ['xlsm', 'sheet.xlsm'],
      ['fods', 'sheet.fods'],
    ] as const) {
      const xlsx = await convert(from, 'xlsx', fixture);
      expect((await detectFile(xlsx)).id).toBe('xlsx');
      expect(await partText(xlsx, 'xl/sharedStrings.xml')).toContain('north');
    }
  });

  it('converts a pptm and a flat ODP to pptx with their slide text', async () => {
    for (const [from, fixture] of [
      ['pptm', 'slides.pptm'],
      ['fodp', 'slides.fodp'],
    ] as const) {
      const pptx = await convert(from, 'pptx', fixture);
      expect((await detectFile(pptx)).id).toBe('pptx');
      expect(await partText(pptx, 'ppt/slides/slide1.xml')).toContain('Roadmap');
    }
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

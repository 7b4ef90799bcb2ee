import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import libreoffice from '../../converters/libreoffice.js';
import { fixture } from '../detect/helpers.js';
import { convertWith, pdfPageCount, pdfText } from '../helpers/office.js';

/** Page options on the way to PDF, each result measured by poppler (pdfinfo, pdftotext -bbox). */

const dir = mkdtempSync(join(tmpdir(), 'fileconv-lo-pages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Width and height of the first page in points, rounded. */
function pageSize(pdf: string): [number, number] {
  const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
  const m = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info);
  return [Math.round(Number(m?.[1])), Math.round(Number(m?.[2]))];
}

/** Left edge of the first word on the first page, in points. */
function firstWordLeft(pdf: string): number {
  const html = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', pdf, '-'], { encoding: 'utf8' });
  return Number(/<word xMin="([\d.]+)"/.exec(html)?.[1]);
}

async function toPdf(from: string, input: string, options: Record<string, unknown> = {}): Promise<string> {
  const { files, leftover } = await convertWith(libreoffice, from, 'pdf', input, options);
  expect(leftover).toEqual([]);
  return files[0] as string;
}

let wideCsv: string;
let threeSheets: string;
beforeAll(async () => {
  // 25 columns: three A4 portrait pages wide as LibreOffice prints them by default.
  wideCsv = join(dir, 'quarterly-figures.csv');
  const header = Array.from({ length: 25 }, (_, i) => `column${i + 1}`);
  const rows = Array.from({ length: 20 }, (_, r) => header.map((_, c) => `r${r}c${c}`));
  writeFileSync(wideCsv, [header, ...rows].map((r) => r.join(',')).join('\n'));
  const book = new ExcelJS.Workbook();
  for (const name of ['North', 'South', 'West']) {
    const sheet = book.addWorksheet(name);
    for (let r = 1; r <= 90; r++) sheet.addRow(Array.from({ length: 12 }, (_, c) => `${name} ${r}.${c}`));
  }
  threeSheets = join(dir, 'regions.xlsx');
  await book.xlsx.writeFile(threeSheets);
});

describe('libreoffice page options', () => {
  it('prints a document on A4 (595 x 842 pt), landscape swapped, Letter and margins', {
    timeout: 120_000,
  }, async () => {
    const docx = fixture('document.docx');
    expect(pageSize(await toPdf('docx', docx, { paper: 'a4' }))).toEqual([595, 842]);
    expect(pageSize(await toPdf('docx', docx, { paper: 'A4', landscape: true }))).toEqual([842, 595]);
    const letter = await toPdf('docx', docx, { paper: 'letter', margin: '1in' });
    expect(pageSize(letter)).toEqual([612, 792]);
    expect(firstWordLeft(letter)).toBeCloseTo(72, 0);
    expect(pageSize(await toPdf('docx', docx, { paper: '100x150mm' }))).toEqual([283, 425]);
  });

  it('fits a 25-column sheet on one landscape A4 page with fit_width, and prints no file name in a header', {
    timeout: 120_000,
  }, async () => {
    const plain = await toPdf('csv', wideCsv);
    expect(pdfPageCount(plain)).toBeGreaterThan(1);
    const fitted = await toPdf('csv', wideCsv, { paper: 'a4', landscape: true, fit_width: true });
    expect(pdfPageCount(fitted)).toBe(1);
    expect(pageSize(fitted)).toEqual([842, 595]);
    const text = pdfText(fitted);
    expect(text).toContain('column25');
    // Calc's default header is the sheet's name: for a CSV, the file's (the upload's, or ours).
    expect(text).not.toMatch(/quarterly-figures|input/i);
  });

  it('prints one page per sheet with single_page_sheets', { timeout: 120_000 }, async () => {
    expect(pdfPageCount(await toPdf('xlsx', threeSheets))).toBeGreaterThan(3);
    expect(pdfPageCount(await toPdf('xlsx', threeSheets, { single_page_sheets: true }))).toBe(3);
  });

  it('declares page options on writer and calc PDF edges only, sheet options on calc ones', () => {
    const names = (from: string, to: string) =>
      libreoffice.edges.find((e) => e.from === from && e.to === to)?.options ?? [];
    expect(names('docx', 'pdf')).toEqual(
      expect.arrayContaining(['paper', 'landscape', 'margin', 'password']),
    );
    expect(names('docx', 'pdf')).not.toContain('fit_width');
    expect(names('xlsx', 'pdf')).toEqual(expect.arrayContaining(['single_page_sheets', 'fit_width']));
    expect(names('pptx', 'pdf')).not.toContain('paper');
    // A PDF's password is qpdf's to take off before LibreOffice imports it.
    expect(names('pdf', 'docx')).not.toContain('password');
  });
});

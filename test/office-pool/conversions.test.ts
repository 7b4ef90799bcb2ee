import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeOfficePool,
  convertWithPool,
  officePoolAvailable,
  officePoolStatus,
} from '../../converters/libreoffice/pool.js';
import { FileconvError } from '../../src/errors/index.js';
import { docxToPdf, makeDocx, makePptx, makeXlsx } from './inputs.js';
import { leftoverOfficeProcessesSettled } from './leftovers.js';

let dir: string;
const seenDirs = new Set<string>();

function remember(): void {
  for (const i of officePoolStatus().instances) if (i.dir) seenDirs.add(i.dir);
}

function convert(input: string, output: string, filter: string, inputFilter?: string) {
  return convertWithPool({
    input,
    output,
    filter,
    inputFilter,
    timeoutMs: 60_000,
    signal: new AbortController().signal,
  });
}

const isPdf = (path: string) => readFileSync(path).subarray(0, 5).toString('latin1') === '%PDF-';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fileconv-pool-test-'));
});

afterAll(async () => {
  remember();
  await closeOfficePool();
  rmSync(dir, { recursive: true, force: true });
  expect(await leftoverOfficeProcessesSettled([...seenDirs])).toEqual([]);
});

describe('office pool conversions', () => {
  it('is available on this machine', async () => {
    expect(await officePoolAvailable()).toEqual({ ok: true });
    expect(officePoolStatus().python).toBeTruthy();
  });

  it('converts 20 docx files to pdf one after another', async () => {
    for (let n = 0; n < 20; n++) {
      const docx = makeDocx(dir, n);
      const pdf = join(dir, `doc${n}.pdf`);
      await convert(docx, pdf, 'writer_pdf_Export', 'MS Word 2007 XML');
      expect(isPdf(pdf)).toBe(true);
      remember();
    }
    expect(officePoolStatus().conversions).toBeGreaterThanOrEqual(20);
  });

  it('makes an xlsx from csv and converts it to pdf', async () => {
    const xlsx = await makeXlsx(dir, 1);
    expect(readFileSync(xlsx).subarray(0, 2).toString('latin1')).toBe('PK');
    const pdf = join(dir, 'sheet.pdf');
    await convert(xlsx, pdf, 'calc_pdf_Export', 'Calc MS Excel 2007 XML');
    expect(isPdf(pdf)).toBe(true);
  });

  it('converts a pptx to pdf', async () => {
    const pptx = makePptx(dir, 1);
    const pdf = join(dir, 'slides.pdf');
    await convert(pptx, pdf, 'impress_pdf_Export', 'Impress MS PowerPoint 2007 XML');
    expect(isPdf(pdf)).toBe(true);
  });

  it('passes PDF export settings as FilterData (page range)', async () => {
    const docx = join(dir, 'long.docx');
    const md = join(dir, 'long.md');
    writeFileSync(
      md,
      ['first page', 'second page', 'third page'].join(
        '\n\n```{=openxml}\n<w:p><w:r><w:br w:type="page"/></w:r></w:p>\n```\n\n',
      ),
    );
    execFileSync('pandoc', [md, '-o', docx]);
    const pdf = join(dir, 'range.pdf');
    await docxToPdf(docx, pdf, { PageRange: '2' });
    const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
    expect(text).toContain('second page');
    expect(text).not.toContain('first page');
  });

  it('reports garbage input as MALFORMED_DOCUMENT and keeps working', async () => {
    const garbage = join(dir, 'garbage.docx');
    writeFileSync(garbage, Buffer.from('this is not a word document at all \u0000\u0001\u0002'));
    const out = join(dir, 'garbage.pdf');
    const error = await convert(garbage, out, 'writer_pdf_Export', 'MS Word 2007 XML').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FileconvError);
    expect((error as FileconvError).code).toBe('MALFORMED_DOCUMENT');
    const pdf = join(dir, 'after-garbage.pdf');
    await convert(makeDocx(dir, 99), pdf, 'writer_pdf_Export', 'MS Word 2007 XML');
    expect(isPdf(pdf)).toBe(true);
  });
});

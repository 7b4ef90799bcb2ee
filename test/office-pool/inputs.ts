import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertWithPool } from '../../converters/libreoffice/pool.js';

/** Office inputs made at run time with real engines: pandoc for docx and pptx, LibreOffice for xlsx. */

function markdown(n: number): string {
  const paragraphs = Array.from(
    { length: 5 },
    (_, i) => `Paragraph ${i + 1} of document ${n}: the quick brown fox.`,
  );
  return `# Document ${n}\n\n${paragraphs.join('\n\n')}\n\n| a | b |\n|---|---|\n| ${n} | ${n * 2} |\n`;
}

export function makeDocx(dir: string, n: number): string {
  const md = join(dir, `doc${n}.md`);
  const docx = join(dir, `doc${n}.docx`);
  writeFileSync(md, markdown(n));
  execFileSync('pandoc', [md, '-o', docx]);
  return docx;
}

export function makePptx(dir: string, n: number): string {
  const md = join(dir, `slides${n}.md`);
  const pptx = join(dir, `slides${n}.pptx`);
  writeFileSync(md, `# Slide one of ${n}\n\n- point a\n- point b\n\n# Slide two of ${n}\n\nSome text.\n`);
  execFileSync('pandoc', [md, '-o', pptx]);
  return pptx;
}

/** A DOCX to PDF through the pool, with the PDF export's filter data (a page range...). */
export function docxToPdf(
  input: string,
  output: string,
  filterData?: Record<string, string | number | boolean>,
): Promise<void> {
  return convertWithPool({
    input,
    output,
    inputFilter: 'MS Word 2007 XML',
    filter: 'writer_pdf_Export',
    ...(filterData ? { filterData } : {}),
    timeoutMs: 60_000,
    signal: new AbortController().signal,
  });
}

/** CSV filter options: comma, double quote, UTF-8, from line 1. */
const CSV_OPTIONS = '44,34,76,1';

export async function makeXlsx(dir: string, n: number): Promise<string> {
  const csv = join(dir, `sheet${n}.csv`);
  const xlsx = join(dir, `sheet${n}.xlsx`);
  const rows = Array.from({ length: 30 }, (_, i) => `row ${i},${i * n},${(i * 1.5).toFixed(1)}`);
  writeFileSync(csv, `name,value,half\n${rows.join('\n')}\n`);
  await convertWithPool({
    input: csv,
    output: xlsx,
    inputFilter: 'Text - txt - csv (StarCalc)',
    inputFilterOptions: CSV_OPTIONS,
    filter: 'Calc MS Excel 2007 XML',
    timeoutMs: 60_000,
    signal: new AbortController().signal,
  });
  return xlsx;
}

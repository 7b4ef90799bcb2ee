import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { closeOfficePool } from '../../converters/libreoffice/pool.js';
import libreoffice from '../../converters/libreoffice.js';
import { gradientPng } from '../converters/_image-samples.js';
import { convertWith, fileScopedDir } from './office.js';

/** Words on the sample's second page, to find where page two landed. */
export const SECOND_PAGE_WORDS = 'plans for the winter season';

/** A two-page report with a title, a picture and a table, as HTML with the picture inline. */
function reportHtml(png: Buffer): string {
  return `<html><body><h1>Quarterly report of the harbour</h1>
<p>The harbour handled more ships this quarter than in any quarter before. Cargo volumes rose by
eleven percent while waiting times at the outer anchorage fell for the third time in a row.</p>
<p><img src="data:image/png;base64,${png.toString('base64')}" width="240" height="160" alt="chart"></p>
<table border="1"><tr><th>Berth</th><th>Ships</th><th>Tonnes</th></tr>
<tr><td>North</td><td>42</td><td>18500</td></tr><tr><td>South</td><td>37</td><td>16120</td></tr>
<tr><td>East</td><td>29</td><td>9800</td></tr></table>
<p style="page-break-before: always">The second page describes the ${SECOND_PAGE_WORDS}, including the
dredging of the inner basin and the new crane at the eastern berth.</p></body></html>`;
}

/**
 * The two-page report as a real PDF, written by LibreOffice from HTML: text on two pages, one
 * embedded picture, a table with ruled cells. Kept in `dir` as report.pdf (and report.html).
 */
export async function reportPdf(dir: string): Promise<string> {
  const png = readFileSync(await gradientPng(join(dir, 'picture.png'), 120, 80));
  const html = join(dir, 'report.html');
  writeFileSync(html, reportHtml(png));
  const { files } = await convertWith(libreoffice, 'html', 'pdf', html);
  const pdf = join(dir, 'report.pdf');
  copyFileSync(files[0] as string, pdf);
  return pdf;
}

/**
 * A folder for the test file with the report PDF made in it before the tests; the office pool
 * the test file started is closed and the folder removed after them.
 */
export function reportPdfFixture(prefix: string): { dir: string; pdf(): string } {
  const fixtures = fileScopedDir(prefix);
  let pdf: string | undefined;
  beforeAll(async () => {
    pdf = await reportPdf(fixtures.dir);
  }, 120_000);
  afterAll(async () => {
    await closeOfficePool();
    fixtures.cleanup();
  });
  return {
    dir: fixtures.dir,
    pdf: () => {
      if (!pdf) throw new Error('the report PDF is made in beforeAll');
      return pdf;
    },
  };
}

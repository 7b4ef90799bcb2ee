import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import libreoffice from '../../converters/libreoffice.js';
import { convertWith } from './office.js';

/** Words on the sample's second page, to find where page two landed. */
export const SECOND_PAGE_WORDS = 'plans for the winter season';

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 120x80 grey gradient PNG: a picture the PDF embeds as an image object. */
export function gradientPng(): Buffer {
  const width = 120;
  const height = 80;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.fill((x * 2) % 256, 1 + x * 3, 4 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A two-page report with a title, a picture and a table, as HTML. */
export function reportHtml(): string {
  const png = gradientPng().toString('base64');
  return `<html><body><h1>Quarterly report of the harbour</h1>
<p>The harbour handled more ships this quarter than in any quarter before. Cargo volumes rose by
eleven percent while waiting times at the outer anchorage fell for the third time in a row.</p>
<p><img src="data:image/png;base64,${png}" width="240" height="160" alt="chart"></p>
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
  const html = join(dir, 'report.html');
  writeFileSync(html, reportHtml());
  const { files } = await convertWith(libreoffice, 'html', 'pdf', html);
  const pdf = join(dir, 'report.pdf');
  copyFileSync(files[0] as string, pdf);
  return pdf;
}

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import libreoffice from '../../converters/libreoffice.js';
import { isOle2, Ole2File } from '../../converters/office/ole2.js';
import { isWord6Or95, wordFibVersion } from '../../converters/office/word-version.js';
import { makeLockedOffice, unoPython } from '../helpers/locked-office.js';
import {
  convertWith,
  encryptedOdt,
  expectCode,
  fileScopedDir,
  pdfPageCount,
  pdfText,
  startsWith,
  zipEntries,
} from '../helpers/office.js';

const SAMPLE = 'fileconv sample';
const fixtures = fileScopedDir('fileconv-lo-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());

/** Converts and keeps the output as `<dir>/<name>` for the next step of a chain. */
async function step(from: string, to: string, input: string, keepAs?: string, options = {}): Promise<string> {
  const { files, leftover } = await convertWith(libreoffice, from, to, input, options);
  expect(leftover).toEqual([]);
  expect(files).toHaveLength(1);
  const kept = join(dir, keepAs ?? `from-${from}.${to}`);
  copyFileSync(files[0] as string, kept);
  return kept;
}

async function expectOoxml(path: string, contentType: string): Promise<void> {
  expect(startsWith(path, 'PK\x03\x04')).toBe(true);
  const entries = await zipEntries(path);
  expect(entries.get('[Content_Types].xml')?.toString('utf8')).toContain(contentType);
}

async function expectOdf(path: string, mimetype: string): Promise<Map<string, Buffer>> {
  const entries = await zipEntries(path);
  // ODF requires `mimetype` as the first entry, stored.
  expect([...entries.keys()][0]).toBe('mimetype');
  expect(entries.get('mimetype')?.toString('utf8')).toBe(mimetype);
  return entries;
}

function expectOle2Stream(path: string, stream: string): void {
  const bytes = readFileSync(path);
  expect(isOle2(bytes)).toBe(true);
  expect(new Ole2File(bytes).stream(stream)?.length).toBeGreaterThan(0);
}

/** A two-slide presentation as flat ODF XML, which soffice turns into a pptx for the tests. */
const FLAT_PRESENTATION = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.presentation">
 <office:body><office:presentation>
  <draw:page draw:name="one"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>Slide one ${SAMPLE}</text:p></draw:text-box></draw:frame></draw:page>
  <draw:page draw:name="two"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>Slide two</text:p></draw:text-box></draw:frame></draw:page>
 </office:presentation></office:body></office:document>
`;

let html: string;
let csv: string;
let pptx: string;

beforeAll(() => {
  html = join(dir, 'sample.html');
  writeFileSync(
    html,
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><h1>Heading</h1><p>${SAMPLE} with <b>bold</b> and ünïcödé.</p></body></html>`,
  );
  csv = join(dir, 'sample.csv');
  writeFileSync(csv, 'name,qty,note\nalpha,1,"fileconv, sample"\nbeta,2,ünïcode\n');
  const fodp = join(dir, 'deck.fodp');
  writeFileSync(fodp, FLAT_PRESENTATION);
  execFileSync(
    'soffice',
    [
      '--headless',
      '--norestore',
      `-env:UserInstallation=file://${join(dir, 'fixture-profile')}`,
      '--convert-to',
      'pptx:Impress MS PowerPoint 2007 XML',
      '--outdir',
      dir,
      fodp,
    ],
    { stdio: 'ignore', env: { ...process.env, HOME: dir } },
  );
  pptx = join(dir, 'deck.pptx');
});

describe('libreoffice converter', () => {
  it('probes soffice with its version', async () => {
    const probe = await libreoffice.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('declares families and the lossy rule', () => {
    const edge = (from: string, to: string) => libreoffice.edges.find((e) => e.from === from && e.to === to);
    expect(edge('docx', 'pdf')).toMatchObject({ family: 'document', lossy: false });
    expect(edge('txt', 'docx')).toMatchObject({ family: 'text', lossy: false });
    expect(edge('docx', 'txt')).toMatchObject({ family: 'document', lossy: true });
    // a workbook becomes one table through the data engine, which picks the sheet
    expect(edge('xlsx', 'csv')).toBeUndefined();
    expect(edge('tsv', 'csv')).toBeUndefined();
    expect(edge('csv', 'xlsx')).toMatchObject({ family: 'spreadsheet', lossy: false });
    expect(edge('pptx', 'odp')).toMatchObject({ family: 'presentation', lossy: false });
    expect(edge('pptx', 'docx')).toBeUndefined();
  });

  it('converts word-processing formats along a chain through every source and target', async () => {
    const docx = await step('html', 'docx', html);
    await expectOoxml(docx, 'wordprocessingml.document.main+xml');
    expect((await zipEntries(docx)).get('word/document.xml')?.toString('utf8')).toContain(SAMPLE);

    const odt = await step('docx', 'odt', docx);
    const odtEntries = await expectOdf(odt, 'application/vnd.oasis.opendocument.text');
    expect(odtEntries.get('content.xml')?.toString('utf8')).toContain(SAMPLE);

    const doc = await step('odt', 'doc', odt);
    expectOle2Stream(doc, 'WordDocument');
    // a Word 97 FIB keeps the Word 97 import filter; Word 6/95 (FIB 101-105) would take the Word 6 one
    const fib = await wordFibVersion(doc);
    expect(fib).toBeGreaterThanOrEqual(0x6a);
    expect(isWord6Or95(fib)).toBe(false);
    expect(await wordFibVersion(docx)).toBeUndefined();

    const rtf = await step('doc', 'rtf', doc);
    expect(startsWith(rtf, '{\\rtf')).toBe(true);

    const txt = await step('rtf', 'txt', rtf);
    const text = readFileSync(txt, 'utf8');
    expect(text).toContain(`${SAMPLE} with bold and ünïcödé.`);
    expect(text.charCodeAt(0)).not.toBe(0xfeff);

    const backToHtml = await step('txt', 'html', txt);
    expect(readFileSync(backToHtml, 'utf8')).toMatch(/<html[\s\S]*fileconv sample/i);

    const pdf = await step('docx', 'pdf', docx);
    expect(startsWith(pdf, '%PDF-')).toBe(true);
    expect(pdfText(pdf)).toContain(SAMPLE);
  });

  it('converts spreadsheets along a chain through every source and target', async () => {
    const xlsx = await step('csv', 'xlsx', csv);
    await expectOoxml(xlsx, 'spreadsheetml.sheet.main+xml');

    const ods = await step('xlsx', 'ods', xlsx);
    await expectOdf(ods, 'application/vnd.oasis.opendocument.spreadsheet');

    const xls = await step('ods', 'xls', ods);
    expectOle2Stream(xls, 'Workbook');

    const fromXls = await step('xls', 'xlsx', xls);
    await expectOoxml(fromXls, 'spreadsheetml.sheet.main+xml');

    const tsv = join(dir, 'sample.tsv');
    writeFileSync(tsv, 'name\tqty\tnote\nalpha\t1\tfileconv, sample\nbeta\t2\tünïcode\n');
    const fromTsv = await step('tsv', 'ods', tsv);
    const tsvEntries = await expectOdf(fromTsv, 'application/vnd.oasis.opendocument.spreadsheet');
    expect(tsvEntries.get('content.xml')?.toString('utf8')).toContain('fileconv, sample');

    const pdf = await step('xlsx', 'pdf', xlsx);
    expect(startsWith(pdf, '%PDF-')).toBe(true);
    expect(pdfText(pdf)).toContain('alpha');
  });

  it('converts presentations, and honours the pages option for pdf', async () => {
    const odp = await step('pptx', 'odp', pptx);
    await expectOdf(odp, 'application/vnd.oasis.opendocument.presentation');

    const ppt = await step('odp', 'ppt', odp);
    expectOle2Stream(ppt, 'PowerPoint Document');

    const backToPptx = await step('ppt', 'pptx', ppt);
    await expectOoxml(backToPptx, 'presentationml.presentation.main+xml');

    const pdf = await step('pptx', 'pdf', pptx);
    expect(pdfPageCount(pdf)).toBe(2);
    expect(pdfText(pdf)).toContain(SAMPLE);

    const secondSlide = await step('ppt', 'pdf', ppt, 'slide-two.pdf', { pages: '2' });
    expect(pdfPageCount(secondSlide)).toBe(1);
    expect(pdfText(secondSlide)).toContain('Slide two');
  });

  it('fetches nothing over the network that a document links to', async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(readFileSync(join(dir, 'sample.csv')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const page = join(dir, 'remote.html');
      writeFileSync(
        page,
        `<html><body><p>${SAMPLE}</p><img src="http://127.0.0.1:${port}/pixel.png"></body></html>`,
      );
      const pdf = await step('html', 'pdf', page, 'remote.pdf');
      expect(pdfText(pdf)).toContain(SAMPLE);
      expect(requests).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('reports a password-protected ODF document as ENCRYPTED_DOCUMENT', async () => {
    const locked = join(dir, 'locked.odt');
    await encryptedOdt(locked, 'secret');
    await expectCode(convertWith(libreoffice, 'odt', 'pdf', locked), 'ENCRYPTED_DOCUMENT');
  });

  it.skipIf(!unoPython)(
    'reports Word 97, Excel 97 and ODF files LibreOffice saved with a password as ENCRYPTED_DOCUMENT',
    { timeout: 240_000 },
    async () => {
      const locked = makeLockedOffice(dir, 'secret');
      await expectCode(convertWith(libreoffice, 'doc', 'pdf', locked.doc), 'ENCRYPTED_DOCUMENT');
      await expectCode(convertWith(libreoffice, 'xls', 'xlsx', locked.xls), 'ENCRYPTED_DOCUMENT');
      await expectCode(convertWith(libreoffice, 'ods', 'xlsx', locked.ods), 'ENCRYPTED_DOCUMENT');
    },
  );

  it('reports garbage named as an office file as MALFORMED_DOCUMENT, leaving no soffice behind', async () => {
    const garbage = join(dir, 'garbage.docx');
    writeFileSync(garbage, randomBytes(4096));
    await expectCode(convertWith(libreoffice, 'docx', 'pdf', garbage), 'MALFORMED_DOCUMENT');

    const brokenZip = join(dir, 'broken.xlsx');
    writeFileSync(brokenZip, Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), randomBytes(2048)]));
    await expectCode(convertWith(libreoffice, 'xlsx', 'ods', brokenZip), 'MALFORMED_DOCUMENT');
  });
});

import { createCipheriv, randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import calibre from '../../converters/calibre.js';
import {
  convertWith,
  expectCode,
  fileScopedDir,
  pdfText,
  startsWith,
  zipEntries,
} from '../helpers/office.js';
import { encryptedPdf } from './_image-samples.js';

const SAMPLE = 'fileconv sample';
const fixtures = fileScopedDir('fileconv-calibre-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());

async function step(from: string, to: string, input: string): Promise<string> {
  const { files, leftover } = await convertWith(calibre, from, to, input);
  expect(leftover).toEqual([]);
  expect(files).toHaveLength(1);
  const kept = join(dir, `from-${from}.${to}`);
  copyFileSync(files[0] as string, kept);
  return kept;
}

/** The text of every (x)html part of an epub. */
async function epubText(path: string): Promise<string> {
  const entries = await zipEntries(path);
  expect(entries.get('mimetype')?.toString('utf8')).toBe('application/epub+zip');
  return [...entries]
    .filter(([name]) => /\.x?html?$/.test(name))
    .map(([, bytes]) => bytes.toString('utf8'))
    .join('\n');
}

/** Mobipocket and KF8 books are PalmDB files with type/creator BOOKMOBI at offset 60. */
function expectMobiContainer(path: string): void {
  expect(readFileSync(path).subarray(60, 68).toString('latin1')).toBe('BOOKMOBI');
}

/**
 * An epub whose chapter is AES-encrypted and declared in META-INF/encryption.xml, the way
 * DRM-protected books are packaged.
 */
async function drmEpub(source: string, target: string): Promise<void> {
  const entries = await zipEntries(source);
  const chapter = [...entries.keys()].find((name) => /\.x?html$/.test(name) && !name.includes('titlepage'));
  if (!chapter) throw new Error('no chapter in the sample epub');
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-cbc', randomBytes(16), iv);
  const zip = new yazl.ZipFile();
  for (const [name, bytes] of entries) {
    if (name.endsWith('/')) continue;
    const data = name === chapter ? Buffer.concat([iv, cipher.update(bytes), cipher.final()]) : bytes;
    zip.addBuffer(data, name, { compress: name !== 'mimetype' });
  }
  zip.addBuffer(
    Buffer.from(
      `<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="${chapter}"/></enc:CipherData></enc:EncryptedData></encryption>`,
    ),
    'META-INF/encryption.xml',
  );
  zip.end();
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(target)).on('close', resolve).on('error', reject);
  });
}

let txt: string;

beforeAll(() => {
  txt = join(dir, 'sample.txt');
  writeFileSync(txt, `Chapter One\n\nThis is a ${SAMPLE} in an ebook.\n\nSecond paragraph with ünïcödé.\n`);
});

describe('calibre converter', () => {
  it('probes ebook-convert with its version', async () => {
    const probe = await calibre.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('declares ebook edges only, lossless only between epub and azw3', () => {
    const edge = (from: string, to: string) => calibre.edges.find((e) => e.from === from && e.to === to);
    expect(edge('epub', 'azw3')).toMatchObject({ family: 'ebook', lossy: false, cost: 25 });
    expect(edge('azw3', 'epub')).toMatchObject({ lossy: false });
    expect(edge('pdf', 'epub')).toMatchObject({ family: 'ebook', lossy: true });
    expect(edge('pdf', 'docx')).toBeUndefined();
    expect(
      calibre.edges.every((e) => ['epub', 'mobi', 'azw3', 'fb2'].some((f) => f === e.from || f === e.to)),
    ).toBe(true);
  });

  it('converts along a chain through every source and target format', async () => {
    const epub = await step('txt', 'epub', txt);
    expect(await epubText(epub)).toContain(SAMPLE);

    const mobi = await step('epub', 'mobi', epub);
    expectMobiContainer(mobi);

    const azw3 = await step('mobi', 'azw3', mobi);
    expectMobiContainer(azw3);

    const fb2 = await step('azw3', 'fb2', azw3);
    expect(readFileSync(fb2, 'utf8')).toMatch(/<FictionBook[\s\S]*fileconv sample/);

    const docx = await step('fb2', 'docx', fb2);
    const docxEntries = await zipEntries(docx);
    expect(docxEntries.get('[Content_Types].xml')?.toString('utf8')).toContain('wordprocessingml');
    expect(docxEntries.get('word/document.xml')?.toString('utf8')).toContain(SAMPLE);

    const fromDocx = await step('docx', 'epub', docx);
    expect(await epubText(fromDocx)).toContain(SAMPLE);

    const pdf = await step('epub', 'pdf', epub);
    expect(startsWith(pdf, '%PDF-')).toBe(true);
    expect(pdfText(pdf)).toContain(SAMPLE);

    const fromPdf = await step('pdf', 'azw3', pdf);
    expectMobiContainer(fromPdf);

    const plain = await step('epub', 'txt', epub);
    expect(readFileSync(plain, 'utf8')).toContain(`This is a ${SAMPLE} in an ebook.`);
  });

  it('reports DRM-protected epubs and password-protected pdfs as ENCRYPTED_DOCUMENT', async () => {
    const epub = await step('txt', 'epub', txt);
    const locked = join(dir, 'drm.epub');
    await drmEpub(epub, locked);
    await expectCode(convertWith(calibre, 'epub', 'mobi', locked), 'ENCRYPTED_DOCUMENT');

    const pdf = await step('epub', 'pdf', epub);
    const lockedPdf = join(dir, 'locked.pdf');
    await encryptedPdf(pdf, lockedPdf);
    await expectCode(convertWith(calibre, 'pdf', 'epub', lockedPdf), 'ENCRYPTED_DOCUMENT');
  });

  it('reports unreadable books as MALFORMED_DOCUMENT', async () => {
    for (const format of ['epub', 'mobi', 'fb2']) {
      const garbage = join(dir, `garbage.${format}`);
      writeFileSync(garbage, randomBytes(3000));
      await expectCode(convertWith(calibre, format, 'txt', garbage), 'MALFORMED_DOCUMENT');
    }
  });
});

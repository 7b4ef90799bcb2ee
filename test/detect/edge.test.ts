import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, open, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect, detectFile } from '../../src/detect/index.js';
import { FileconvError } from '../../src/errors/index.js';
import { fixture } from './helpers.js';

const TWO_GB = 2 * 1024 ** 3;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileconv-detect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes the first `n` bytes of a fixture to a temp file. */
async function headOf(name: string, n: number, as: string): Promise<string> {
  const path = join(dir, as);
  await writeFile(path, (await readFile(fixture(name))).subarray(0, n));
  return path;
}

/** A sparse file of `size` bytes whose first bytes are `start` (no disk space is used for the rest). */
async function sparse(as: string, size: number, start: Buffer = Buffer.alloc(0)): Promise<string> {
  const path = join(dir, as);
  await writeFile(path, start);
  await truncate(path, size);
  return path;
}

describe('declared versus detected', () => {
  it('flags a PNG named .pdf as a mismatch', async () => {
    const path = join(dir, 'photo.pdf');
    await copyFile(fixture('image.png'), path);
    expect(await detect(path)).toEqual({
      declared: 'pdf',
      detected: 'png',
      match: false,
      mime: 'image/png',
      confidence: 1,
    });
  });

  it('takes the declared format from an explicit value, then the filename, then the Content-Type', async () => {
    const path = fixture('image.png');
    expect((await detect(path, { declared: 'jpeg', filename: 'x.gif' })).declared).toBe('jpg');
    expect((await detect(path, { filename: 'upload.JPEG' })).declared).toBe('jpg');
    expect((await detect(fixture('hard/node-script'), { contentType: 'image/png; q=1' })).declared).toBe(
      'png',
    );
    // An unknown extension declares nothing, so the Content-Type is used.
    expect((await detect(path, { filename: 'x.weird', contentType: 'image/gif' })).declared).toBe('gif');
  });

  it('reports the detected id as declared, and a match, when nothing declares a format', async () => {
    const report = await detect(fixture('hard/python-script'));
    expect(report).toMatchObject({ declared: 'py', detected: 'py', match: true });
  });

  it('matches a profile against its base format (PDF/A declared, PDF detected)', async () => {
    const report = await detect(fixture('archival.pdfa.pdf'), { declared: 'pdfa' });
    expect(report).toMatchObject({ declared: 'pdfa', detected: 'pdf', match: true });
  });

  it('rejects an unknown explicit format and a missing file with FileconvError codes', async () => {
    await expect(detect(fixture('image.png'), { declared: 'nope' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    const missing = detect(join(dir, 'missing.png'));
    await expect(missing).rejects.toBeInstanceOf(FileconvError);
    await expect(missing).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    await expect(detect(dir)).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });
});

describe('undecidable and damaged files', () => {
  it('reports an empty file as bin with confidence 0', async () => {
    const path = join(dir, 'empty.txt');
    await writeFile(path, '');
    expect(await detect(path)).toMatchObject({
      declared: 'txt',
      detected: 'bin',
      match: false,
      confidence: 0,
    });
  });

  it('reports random bytes as bin with low confidence', async () => {
    const path = join(dir, 'noise.dat');
    // 0x9b first: random bytes must not happen to start with a real signature.
    await writeFile(path, Buffer.concat([Buffer.from([0x9b]), randomBytes(8191)]));
    expect(await detectFile(path)).toEqual({ id: 'bin', confidence: 0.1 });
  });

  it('still names a truncated PNG by its signature', async () => {
    expect(await detectFile(await headOf('image.png', 100, 'cut.png'))).toEqual({ id: 'png', confidence: 1 });
  });

  it('reports a truncated DOCX (no central directory) as a ZIP with weak confidence', async () => {
    const found = await detectFile(await headOf('document.docx', 100, 'cut.docx'));
    expect(found.id).toBe('zip');
    expect(found.confidence).toBeLessThan(0.5);
  });

  it('reads the stored mimetype of a truncated ODF file from its first local header', async () => {
    const found = await detectFile(await headOf('document.odt', 100, 'cut.odt'));
    expect(found.id).toBe('odt');
    expect(found.confidence).toBeLessThan(0.5);
  });

  it('names a TIFF whose first directory lies past the bounded read (as ImageMagick writes them)', async () => {
    // Header pointing at an IFD 3 MB in: the directory itself is never read.
    const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x00, 0x00, 0x30, 0x00]);
    const report = await detect(await sparse('late-ifd.tiff', 4 * 1024 * 1024, header));
    expect(report.detected).toBe('tiff');
    expect(report.confidence).toBeLessThan(1);
  });

  it('reports an OLE2 file without an Office stream as bin', async () => {
    const bytes = await readFile(fixture('sheet.xls'));
    const stream = Buffer.from('Workbook', 'utf16le');
    const at = bytes.indexOf(stream);
    expect(at).toBeGreaterThan(0);
    Buffer.from('Workbooq', 'utf16le').copy(bytes, at);
    const path = join(dir, 'other.ole');
    await writeFile(path, bytes);
    expect(await detectFile(path)).toEqual({ id: 'bin', confidence: 0.3 });
  });
});

describe('bounded reads on a 2 GB sparse file', () => {
  it('detects 2 GB of zeros as bin reading at most the head', async () => {
    const stats = { bytesRead: 0 };
    expect(await detectFile(await sparse('zeros.bin', TWO_GB), stats)).toEqual({
      id: 'bin',
      confidence: 0.1,
    });
    expect(stats.bytesRead).toBeLessThanOrEqual(64 * 1024);
  });

  it('detects a 2 GB file starting with a PNG signature, reading only the head', async () => {
    const stats = { bytesRead: 0 };
    const png = (await readFile(fixture('image.png'))).subarray(0, 64);
    expect((await detectFile(await sparse('huge.png', TWO_GB, png), stats)).id).toBe('png');
    expect(stats.bytesRead).toBeLessThanOrEqual(64 * 1024);
  });

  it('inspects a 2 GB ZIP-headed file through its tail with a bounded read', async () => {
    const stats = { bytesRead: 0 };
    const docx = await readFile(fixture('document.docx'));
    const found = await detectFile(await sparse('huge.docx', TWO_GB, docx.subarray(0, 4096)), stats);
    // No central directory in reach: the local headers still name the parts of a Word document.
    expect(found).toEqual({ id: 'docx', confidence: 0.4 });
    expect(stats.bytesRead).toBeLessThan(1024 * 1024);
  });

  it('finds the central directory of a real ZIP placed at the end of a 2 GB file', async () => {
    // A ZIP after 2 GB of leading bytes (like a self-extracting archive): its end record points
    // into the leading zeros, so only the tail and a bounded central-directory read happen.
    const path = await sparse('prefixed.zip', TWO_GB);
    const zip = await readFile(fixture('archive.zip'));
    const handle = await open(path, 'r+');
    await handle.write(Buffer.from('PK\x03\x04'), 0, 4, 0);
    await handle.write(zip, 0, zip.length, TWO_GB);
    await handle.close();
    const stats = { bytesRead: 0 };
    expect((await detectFile(path, stats)).id).toBe('zip');
    expect(stats.bytesRead).toBeLessThan(1024 * 1024);
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gradientPng } from '../converters/_image-samples.js';
import {
  downloadArtifact,
  filePart,
  get,
  type Json,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';
import {
  darkPixels,
  makeSamples,
  maxChroma,
  pageBoxes,
  pageCount,
  render,
  run,
  type Samples,
} from './_pdf-tools-samples.js';

/**
 * The page tools (redaction, crop, rotation of chosen pages, pages per sheet and booklets, blank
 * pages removed, greyscale, pictures taken out) through a started server and through the CLI,
 * each result checked with poppler's tools (pdftotext, pdfinfo, pdftoppm, pdfimages).
 */

const hasFitz = (() => {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import fitz'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));

let server: TestServer;
let dir: string;
let samples: Samples;

let made = 0;
/** One conversion through the API: the finished request, and its artifact on disk. */
async function convert(
  input: string,
  conversion: string,
  options: Json,
): Promise<{ done: Json; out: string }> {
  const res = await post(`${server.url}/api/public/convert`, [
    metaPart({ conversion, options }),
    filePart('input.pdf', readFileSync(input)),
  ]);
  if (res.status !== 202) return { done: { status: res.status, ...res.json }, out: '' };
  const done = await waitDone(server.url, res.json.request_id as string);
  if (done.status !== 'succeeded') return { done, out: '' };
  const artifact = conversion.split('-')[1]!;
  const out = await downloadArtifact(server.url, done.request_id, artifact, dir, `out-${++made}.${artifact}`);
  return { done, out };
}

const text = (pdf: string) => run('pdftotext', [pdf, '-']);

describe.skipIf(!hasFitz)('PDF page tools (python3-fitz installed)', () => {
  beforeAll(async () => {
    dir = tempDir();
    const png = await gradientPng(join(dir, 'logo.png'), 40, 40, true);
    const jpg = join(dir, 'photo.jpg');
    await sharp(png).flatten({ background: '#ffffff' }).jpeg().toFile(jpg);
    samples = makeSamples(dir, jpg, png);
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    removeDir(dir);
  });

  it('redacts words, a pattern and a box: gone from the text, black on the page', async () => {
    const { done, out } = await convert(samples.redact, 'pdf-pdf', {
      redact_text: 'john smith',
      redact_regex: String.raw`\d{3}-\d{2}-\d{4}`,
      redact_boxes: '1:90,280,320,420',
    });
    expect(done.status).toBe('succeeded');
    const words = text(out);
    expect(words).toContain('Secret name');
    expect(words).toContain('Account');
    expect(words).not.toMatch(/John|Smith|6789/);
    // The box (a blue square under it) is black, every pixel of it, at one pixel a point.
    const page = render(out, 1, dir);
    for (let y = 842 - 420 + 2; y < 842 - 280 - 2; y += 4) {
      for (let x = 92; x < 318; x += 4) {
        const i = (y * page.width + x) * 3;
        expect(Math.max(page.data[i]!, page.data[i + 1]!, page.data[i + 2]!)).toBeLessThan(40);
      }
    }
  });

  it('crops to a box (pdfinfo reads it back) and rotates chosen pages', async () => {
    const { out } = await convert(samples.four, 'pdf-pdf', {
      crop: '50,60,300,400',
      rotate_pages: '90:1-2,180:4',
    });
    const boxes = pageBoxes(out);
    expect(boxes.map((b) => b.rot)).toEqual([90, 90, 0, 180]);
    for (const b of boxes) expect(b.crop).toEqual([50, 60, 300, 400]);
    expect(boxes[0]!.media).toEqual([0, 0, 595, 842]);
  });

  it('lays four pages on a sheet and makes a booklet, text still extractable', async () => {
    const sheet = await convert(samples.four, 'pdf-pdf', { pages_per_sheet: 4 });
    expect(pageCount(sheet.out)).toBe(1);
    expect(pageBoxes(sheet.out)[0]!.media).toEqual([0, 0, 595, 842]);
    expect(text(sheet.out)).toMatch(/First page[\s\S]*Last page/);
    const booklet = await convert(samples.four, 'pdf-pdf', { booklet: true });
    expect(pageCount(booklet.out)).toBe(2);
    expect(pageBoxes(booklet.out)[0]!.media).toEqual([0, 0, 842, 595]);
    // The outer side holds the last page on the left and the first on the right.
    const outer = run('pdftotext', ['-f', '1', '-l', '1', booklet.out, '-']);
    expect(outer.indexOf('Last page')).toBeLessThan(outer.indexOf('First page'));
  });

  it('removes blank pages; a scan with specks goes only under a threshold', async () => {
    const strict = await convert(samples.four, 'pdf-pdf', { remove_blank_pages: true });
    expect(pageCount(strict.out)).toBe(3);
    const loose = await convert(samples.four, 'pdf-pdf', {
      remove_blank_pages: true,
      blank_threshold: 0.0005,
    });
    expect(pageCount(loose.out)).toBe(2);
    for (const page of [1, 2]) expect(darkPixels(render(loose.out, page, dir, true, 36))).toBeGreaterThan(20);
    const timeline = await get(`${server.url}/api/public/requests/${loose.done.request_id}/timeline`, {
      accept: 'text/plain',
    });
    expect(timeline.text).toContain('blank pages removed: 2, 3');
  });

  it('greyscale: no rendered pixel keeps a colour', async () => {
    expect(maxChroma(render(samples.four, 4, dir, false, 36))).toBeGreaterThan(100);
    const { out } = await convert(samples.four, 'pdf-pdf', { greyscale: true });
    expect(maxChroma(render(out, 4, dir, false, 36))).toBeLessThanOrEqual(2);
    expect(text(out)).toContain('Last page');
  });

  it('takes the pictures out in their own encodings, named by page, as pdfimages lists them', async () => {
    const { done, out } = await convert(samples.pictures, 'pdf-zip', {});
    expect(done.status).toBe('succeeded');
    const names = Object.keys(unzipSync(readFileSync(out))).sort();
    const listed = run('pdfimages', ['-list', samples.pictures])
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/));
    expect(names).toHaveLength(listed.length);
    expect(names).toEqual(['page-001-001.jpg', 'page-003-001.png', 'page-003-002.png']);
    expect(listed.map((c) => [c[0], c[2], c[8]])).toEqual([
      ['1', 'image', 'jpeg'],
      ['3', 'image', 'image'],
      ['3', 'smask', 'image'],
    ]);
  });

  it('refuses a page the document lacks and a malformed rotation', async () => {
    const missing = await convert(samples.four, 'pdf-pdf', { rotate_pages: '90:9' });
    expect(missing.done.status).toBe('failed');
    expect(missing.done.error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'option rotate_pages 9: the document has 4 pages',
    });
    const malformed = await convert(samples.four, 'pdf-pdf', { rotate_pages: '45:1' });
    expect(malformed.done.status).toBe(400);
    expect(malformed.done.error.message).toMatch(/option rotate_pages must look like 90:1-3,180:5/);
  });

  it('the CLI: several tools in one command, and the pictures as a ZIP', { timeout: 300_000 }, async () => {
    const cli = (args: string[]) =>
      execa('node', [BIN, ...args], { cwd: dir, reject: false, stdin: 'ignore' });
    const r = await cli([
      'convert',
      samples.four,
      '--to',
      'pdf',
      '-o',
      'cli.pdf',
      ...['-O', 'remove_blank_pages=true', '-O', 'blank_threshold=0.0005', '-O', 'redact_text=smith'],
      ...['-O', 'rotate_pages=90:1', '-O', 'crop=content', '-O', 'greyscale=true'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = join(dir, 'cli.pdf');
    expect(pageCount(out)).toBe(2);
    // Page 1 cropped to its line of text and turned a quarter: shown tall and narrow. Ghostscript,
    // which made it grey, draws the turn into the page rather than keeping /Rotate.
    const first = render(out, 1, dir, true);
    expect(first.height, run('pdfinfo', ['-box', out])).toBeGreaterThan(3 * first.width);
    expect(first.width).toBeLessThan(60);
    expect(text(out)).toMatch(/First page[\s\S]*Last page by Jane/);
    expect(text(out)).not.toContain('Smith');
    expect(maxChroma(render(out, 2, dir, false, 36))).toBeLessThanOrEqual(2);
    const z = await cli(['convert', samples.pictures, '--to', 'zip', '-o', 'pictures.zip']);
    expect(z.exitCode, z.stderr).toBe(0);
    expect(Object.keys(unzipSync(readFileSync(join(dir, 'pictures.zip')))).sort()).toHaveLength(3);
  });
});

import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOfficePool } from '../../converters/libreoffice/pool.js';
import { reportPdf } from '../helpers/layout-pdf.js';
import { fileScopedDir } from '../helpers/office.js';
import {
  filePart,
  get,
  makeDocx,
  metaPart,
  post,
  removeDir,
  startTestServer,
  submit,
  type TestServer,
  waitDone,
} from './helpers.js';

const fixtures = fileScopedDir('fileconv-checks-');
let server: TestServer;
let base: string;
let pdf: Buffer;

beforeAll(async () => {
  pdf = readFileSync(await reportPdf(fixtures.dir));
  server = await startTestServer();
  base = server.url;
}, 120_000);
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
  await closeOfficePool();
  fixtures.cleanup();
});

describe('artifact checks over HTTP', () => {
  it('says what a pdf to docx kept: the picture and the words', async () => {
    const id = await submit(base, 'pdf-docx', 'report.pdf', pdf);
    const done = await waitDone(base, id);
    expect(done.status).toBe('succeeded');
    const [docx] = done.artifacts;
    expect(docx.checks.images).toBe(1);
    expect(docx.checks.words_kept).toBeGreaterThanOrEqual(0.95);
    expect(docx.checks.words).toBeGreaterThan(50);
    const timeline = await get(`${base}/api/public/requests/${id}/timeline`);
    const messages = timeline.json.events.map((e: { message: string }) => e.message).join('\n');
    expect(messages).toContain('layout mode');
    expect(messages).toMatch(/the docx has (2 pages, )?1 picture, (9[5-9]|100)% of the words/);
  }, 120_000);

  it('says the pages and words of a docx to pdf', async () => {
    const id = await submit(base, 'docx-pdf', 'long.docx', await makeDocx(fixtures.dir, 120));
    const done = await waitDone(base, id);
    expect(done.artifacts[0].checks.pages).toBeGreaterThan(1);
    expect(done.artifacts[0].checks.words_kept).toBeGreaterThanOrEqual(0.95);
  }, 120_000);

  it('says the size of each page image, and nothing for the zip', async () => {
    const id = await submit(base, 'pdf-png', 'report.pdf', pdf);
    const done = await waitDone(base, id);
    const pages = done.artifacts.filter((a: { name: string }) => a.name.startsWith('png-'));
    expect(pages).toHaveLength(2);
    for (const page of pages) expect(page.checks).toMatchObject({ width: 1241, height: 1754 });
    expect(done.artifacts.find((a: { name: string }) => a.name === 'zip').checks).toBeUndefined();
  }, 120_000);

  it('keeps the pixel size of an image and stores the checks with the artifact', async () => {
    const png = await sharp({ create: { width: 37, height: 21, channels: 3, background: '#08f' } })
      .png()
      .toBuffer();
    const res = await post(`${base}/api/public/convert`, [
      metaPart({ conversion: 'png-jpg' }),
      filePart('dot.png', png),
    ]);
    const done = await waitDone(base, res.json.request_id);
    expect(done.artifacts[0].checks).toEqual({ width: 37, height: 21 });
    // Read back from the store, not from the worker's memory.
    const again = await get(`${base}/api/public/requests/${res.json.request_id}`);
    expect(again.json.artifacts[0].checks).toEqual({ width: 37, height: 21 });
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filePart,
  get,
  makeDocx,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from './helpers.js';

let server: TestServer;
let scratch: string;
beforeAll(async () => {
  // One slot, so a conversion submitted behind a LibreOffice one is surely still queued a second later.
  server = await startTestServer({ concurrency: '1' });
  scratch = tempDir('fileconv-submit-wait-');
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
  removeDir(scratch);
});

const convert = (query: string, conversion: string, name: string, content: string | Buffer) =>
  post(`${server.url}/api/public/convert${query}`, [metaPart({ conversion }), filePart(name, content)]);

describe('POST /api/public/convert?wait=N', () => {
  it('answers 200 with the finished request, as GET /requests/{id} shows it', async () => {
    const res = await convert('?wait=60', 'csv-json', 'fruit.csv', 'name,qty\napple,3\npear,5\n');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-owner-token']).toMatch(/^fco_/);
    expect(res.json.status).toBe('succeeded');
    expect(res.json.artifacts.map((a: { name: string }) => a.name)).toEqual(['json']);
    const read = await get(`${server.url}/api/public/requests/${res.json.request_id}`);
    expect(res.json).toEqual(read.json);
    const file = await get(res.json.artifacts[0].download);
    expect(file.status).toBe(302);
  }, 60_000);

  it('answers 200 with the failed request when the conversion fails in time', async () => {
    const res = await convert('?wait=60', 'pdf-txt', 'broken.pdf', '%PDF-1.4\nnot really a pdf\n');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('failed');
    expect(res.json.error.code).toMatch(/^(MALFORMED_DOCUMENT|CONVERT_FAILED)$/);
  }, 60_000);

  it('answers the usual 202 when the conversion outlasts the wait', async () => {
    // One slot per engine: the second document waits behind the first in LibreOffice's lane (the
    // first starts the office instance, which alone takes longer than the wait).
    const docx = await makeDocx(scratch, 80);
    const first = await convert('', 'docx-pdf', 'long.docx', docx);
    expect(first.status).toBe(202);
    const res = await convert('?wait=1', 'docx-pdf', 'later.docx', await makeDocx(scratch, 1));
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ request_id: res.json.request_id, status: 'running' });
    expect((await waitDone(server.url, res.json.request_id)).status).toBe('succeeded');
  }, 120_000);

  it('keeps wait=0 and no wait as plain 202 submits', async () => {
    for (const query of ['', '?wait=0']) {
      const res = await convert(query, 'csv-json', 'a.csv', 'a,b\n1,2\n');
      expect(res.status).toBe(202);
    }
  });

  it('refuses a wait that is not a whole number of seconds from 0 to 60, before filing anything', async () => {
    const before = await server.context.store.countQueued();
    for (const wait of ['61', '-1', 'abc', '1.5', '', '100']) {
      const res = await convert(`?wait=${wait}`, 'csv-json', 'b.csv', 'a,b\n1,2\n');
      expect({ wait, status: res.status, code: res.json?.error?.code }).toEqual({
        wait,
        status: 400,
        code: 'INVALID_REQUEST',
      });
    }
    expect(await server.context.store.countQueued()).toBeLessThanOrEqual(before);
  });
});

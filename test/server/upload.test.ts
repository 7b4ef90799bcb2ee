import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blobFiles,
  filePart,
  get,
  type Json,
  metaPart,
  multipart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  waitDone,
} from './helpers.js';

const CSV = 'a,b\n1,2\n';
const MAX = 64 * 1024;

let server: TestServer;
let convertUrl: string;

beforeAll(async () => {
  server = await startTestServer({ maxUpload: String(MAX) });
  convertUrl = `${server.url}/api/public/convert`;
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

/** Uploaded inputs still on disk (artifacts of finished conversions are expected to stay). */
const inputFiles = () => blobFiles(server.dataDir).filter((f) => !f.includes('/artifacts/'));

async function* chunked(parts: (Buffer | (() => AsyncGenerator<Buffer>))[]): AsyncGenerator<Buffer> {
  for (const p of parts) {
    if (Buffer.isBuffer(p)) yield p;
    else yield* p();
  }
}

function expectError(res: { status: number; json: Json }, status: number, code: string) {
  expect({ status: res.status, code: res.json?.error?.code, m: res.json?.error?.message }).toEqual({
    status,
    code,
    m: expect.any(String),
  });
  expect(typeof res.json.error.message).toBe('string');
}

describe('upload limits', () => {
  it('refuses a body whose Content-Length is over the limit, up front', async () => {
    const res = await post(convertUrl, [
      metaPart({ conversion: 'csv-json' }),
      filePart('big.csv', Buffer.alloc(MAX * 3, 'a')),
    ]);
    expectError(res, 413, 'INTAKE_FAILED');
    expect(inputFiles()).toEqual([]);
  });

  it('refuses while streaming when there is no Content-Length, and deletes the partial file', async () => {
    const boundary = 'streamboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"conversion":"csv-json"}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    );
    const chunk = Buffer.alloc(16 * 1024, 'b');
    const res = await request(convertUrl, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.from(
        chunked([
          head,
          async function* () {
            for (let i = 0; i < 64; i++) yield chunk; // 1 MiB, sixteen times the limit
          },
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      ),
    });
    expect(res.headers['content-length']).toBeDefined();
    const body = (await res.body.json()) as Json;
    expect(res.statusCode).toBe(413);
    expect(body.error.code).toBe('INTAKE_FAILED');
    expect(inputFiles()).toEqual([]);
  });

  it('accepts a file of exactly the limit', async () => {
    const header = 'a,b\n';
    const body = header + '1,2\n'.repeat((MAX - header.length) / 4);
    expect(body.length).toBe(MAX);
    const res = await post(convertUrl, [metaPart({ conversion: 'csv-json' }), filePart('edge.csv', body)]);
    expect(res.status).toBe(202);
    expect((await waitDone(server.url, res.json.request_id)).status).toBe('succeeded');
  });
});

describe('malformed uploads', () => {
  it('answers 422 INTAKE_FAILED for a broken multipart body, a missing or an empty file part', async () => {
    const { body, contentType } = multipart([metaPart({ conversion: 'csv-json' }), filePart('a.csv', CSV)]);
    const cut = await request(convertUrl, {
      method: 'POST',
      body: body.subarray(0, body.length - 30),
      headers: { 'content-type': contentType },
    });
    expect(cut.statusCode).toBe(422);
    expect(((await cut.body.json()) as Json).error.code).toBe('INTAKE_FAILED');
    const notMultipart = await request(convertUrl, {
      method: 'POST',
      body: '{"conversion":"csv-json"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(notMultipart.statusCode).toBe(422);
    await notMultipart.body.text();
    expectError(await post(convertUrl, [metaPart({ conversion: 'csv-json' })]), 422, 'INTAKE_FAILED');
    expectError(
      await post(convertUrl, [metaPart({ conversion: 'csv-json' }), filePart('empty.csv', '')]),
      422,
      'INTAKE_FAILED',
    );
    expectError(await post(`${server.url}/api/public/detect`, []), 422, 'INTAKE_FAILED');
    expect(inputFiles()).toEqual([]);
  });

  it('answers 400 INVALID_REQUEST for a missing, non-JSON or wrongly typed meta, and unknown fields', async () => {
    const file = filePart('a.csv', CSV);
    expectError(await post(convertUrl, [file]), 400, 'INVALID_REQUEST');
    expectError(
      await post(convertUrl, [{ name: 'meta', value: '{conversion: csv-json' }, file]),
      400,
      'INVALID_REQUEST',
    );
    expectError(await post(convertUrl, [metaPart(['csv-json']), file]), 400, 'INVALID_REQUEST');
    expectError(await post(convertUrl, [metaPart({ conversion: 42 }), file]), 400, 'INVALID_REQUEST');
    expectError(
      await post(convertUrl, [metaPart({ conversion: 'csv-json', options: 'fast' }), file]),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await post(convertUrl, [metaPart({ conversion: 'csv-json', colour: 'red' }), file]),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await post(convertUrl, [metaPart({ conversion: 'png-webp', options: { speed: 'warp' } }), file]),
      400,
      'INVALID_REQUEST',
    );
    expectError(await post(convertUrl, [metaPart({}), file]), 400, 'INVALID_REQUEST');
    expect(inputFiles()).toEqual([]);
  });

  it('answers 422 UNSUPPORTED_CONVERSION for a pair not in the catalog', async () => {
    const res = await post(convertUrl, [metaPart({ conversion: 'csv-mp3' }), filePart('a.csv', CSV)]);
    expectError(res, 422, 'UNSUPPORTED_CONVERSION');
  });

  it('cleans file names of paths and control characters', async () => {
    const res = await post(convertUrl, [
      metaPart({ conversion: 'csv-json' }),
      filePart('../../etc/.evil name.csv', CSV),
    ]);
    expect(res.status).toBe(202);
    const done = await waitDone(server.url, res.json.request_id);
    const file = await get(String((await get(done.artifacts[0].download)).headers.location));
    expect(file.headers['content-disposition']).toBe(
      `attachment; filename="evil name.json"; filename*=UTF-8''evil%20name.json`,
    );
    const timeline = await get(`${server.url}/api/public/requests/${res.json.request_id}/timeline`);
    expect(timeline.text).not.toContain('..');
  });

  it('reads a file name sent as raw UTF-8, as browsers send it', async () => {
    const res = await post(convertUrl, [
      metaPart({ conversion: 'csv-json' }),
      filePart('résumé 日本.csv', CSV),
    ]);
    expect(res.status).toBe(202);
    const done = await waitDone(server.url, res.json.request_id);
    const file = await get(String((await get(done.artifacts[0].download)).headers.location));
    expect(file.headers['content-disposition']).toBe(
      `attachment; filename="r_sum_ __.json"; filename*=UTF-8''${encodeURIComponent('résumé 日本.json')}`,
    );
  });
});

describe('source_url', () => {
  it('answers 400 for a URL that is not http(s) and for a private address', async () => {
    expectError(
      await post(convertUrl, [metaPart({ conversion: 'csv-json', source_url: 'ftp://example.com/a.csv' })]),
      400,
      'INVALID_SOURCE_URL',
    );
    expectError(
      await post(convertUrl, [metaPart({ conversion: 'csv-json', source_url: '' })]),
      400,
      'INVALID_SOURCE_URL',
    );
    expectError(
      await post(convertUrl, [metaPart({ conversion: 'csv-json', source_url: `${server.url}/healthz` })]),
      400,
      'SOURCE_URL_BLOCKED',
    );
  });
});

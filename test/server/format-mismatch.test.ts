import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blobFiles,
  filePart,
  metaPart,
  post,
  startTestServer,
  type TestServer,
  waitDone,
} from './helpers.js';

/** POST /api/public/convert refuses a file that is a different kind of thing than its declared format. */
describe('declared format pinning over HTTP', () => {
  let server: TestServer;
  let canary: Server;
  let canaryUrl: string;
  let hits = 0;

  beforeAll(async () => {
    server = await startTestServer();
    canary = createServer((_req, res) => {
      hits++;
      res.end('x');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await server?.stop();
    canary?.close();
  });

  const convert = (conversion: string, name: string, content: string | Buffer) =>
    post(`${server.url}/api/public/convert`, [metaPart({ conversion }), filePart(name, content)]);

  it('answers 422 FORMAT_MISMATCH for an SVG uploaded as png, before any engine runs', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="${canaryUrl}x.png" width="10" height="10"/></svg>`;
    const res = await convert('png-jpg', 'photo.png', svg);
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('FORMAT_MISMATCH');
    expect(res.json.error.message).toMatch(/SVG/);
    expect(res.json.error.declared).toBe('png');
    expect(res.json.error.detected).toBe('svg');
    expect(hits).toBe(0);
    expect(blobFiles(server.dataDir)).toEqual([]);
  });

  it('answers 422 FORMAT_MISMATCH for an HTML page uploaded as docx', async () => {
    const res = await convert(
      'docx-pdf',
      'report.docx',
      '<!doctype html><html><body><p>hi</p></body></html>',
    );
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('FORMAT_MISMATCH');
  });

  it('still converts a real PNG declared as png', async () => {
    const res = await convert('png-jpg', 'dot.png', onePixelPng());
    expect(res.status).toBe(202);
    const done = await waitDone(server.url, res.json.request_id);
    expect(done.status).toBe('succeeded');
  });
});

function onePixelPng(): Buffer {
  return Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );
}

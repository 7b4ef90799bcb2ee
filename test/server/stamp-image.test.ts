import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gradientPng, textPdf } from '../converters/_image-samples.js';
import {
  downloadArtifact,
  filePart,
  type Json,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from './helpers.js';

/** The picture of a stamp as the part "stamp" of a convert request, through a started server. */

let server: TestServer;
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
  removeDir(dir);
});

const stampPart = (filename: string, value: Buffer) => ({
  name: 'stamp',
  filename,
  value,
  contentType: 'application/octet-stream',
});

async function send(parts: Parameters<typeof post>[1]): Promise<Json> {
  const res = await post(`${server.url}/api/public/convert`, parts);
  if (res.status !== 202) return { status: res.status, ...res.json };
  return waitDone(server.url, res.json.request_id as string);
}

const download = (id: string) => downloadArtifact(server.url, id, 'pdf', dir);

describe('POST /api/public/convert with a "stamp" part', () => {
  it('stamps the picture on every page, placed by the options', { timeout: 60_000 }, async () => {
    const pdf = await textPdf(dir, ['First page', 'Second page']);
    const logo = await gradientPng(join(dir, 'logo.png'), 90, 45, true);
    const done = await send([
      metaPart({
        conversion: 'pdf-pdf',
        options: { stamp_image_position: 'top-left', stamp_image_width: 0.2 },
      }),
      filePart('report.pdf', readFileSync(pdf)),
      stampPart('logo.png', readFileSync(logo)),
    ]);
    expect(done.status).toBe('succeeded');
    const out = await download(done.request_id as string);
    const rows = execFileSync('pdfimages', ['-list', out], { encoding: 'utf8' }).split('\n').slice(2);
    const cells = rows.filter((r) => r.trim()).map((r) => r.trim().split(/\s+/));
    expect(cells.filter((c) => c[2] === 'image').map((c) => c[0])).toEqual(['1', '2']);
    expect(execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' })).toContain('Second page');
  });

  it('a text file sent as logo.png: 400 INVALID_REQUEST, before anything is filed', async () => {
    const pdf = await textPdf(dir, ['Page'], 'one.pdf');
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf' }),
      filePart('report.pdf', readFileSync(pdf)),
      stampPart('logo.png', Buffer.from('hello, not a picture\n')),
    ]);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(String((res.json.error as Json).message)).toMatch(
      /stamp_image was sent as PNG but its bytes are no PNG/,
    );
  });

  it('a stamp over 1 MiB is refused with 400 INVALID_REQUEST before anything is filed', async () => {
    const pdf = await textPdf(dir, ['Page'], 'two.pdf');
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf' }),
      filePart('report.pdf', readFileSync(pdf)),
      stampPart('logo.png', Buffer.alloc(1024 * 1024 + 10)),
    ]);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(String((res.json.error as Json).message)).toMatch(/stamp picture is over 1048576 bytes/);
  });

  it('a stamp of another type (logo.gif) is refused with 400 INVALID_REQUEST', async () => {
    const pdf = await textPdf(dir, ['Page'], 'three.pdf');
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf' }),
      filePart('report.pdf', readFileSync(pdf)),
      stampPart('logo.gif', Buffer.from('GIF89a')),
    ]);
    expect(res.status).toBe(400);
    expect(String((res.json.error as Json).message)).toMatch(/\.png, \.jpg or \.svg/);
  });
});

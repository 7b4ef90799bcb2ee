// The library API as a Node program embeds it: in this process, real engines, and the HTTP API
// driven through app.fetch alone, as a fetch-style server other than node's would call it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalog, convert, createApp, createServer, detect, FileconvError } from '../../src/index.js';
import { ROOT, removeDir, tempDir } from '../server/helpers.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'detect');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) removeDir(d);
});
function dir(): string {
  const d = tempDir('fileconv-lib-');
  dirs.push(d);
  return d;
}

describe('detect', () => {
  it('reads a path, and bytes with the name they go by', async () => {
    expect(await detect(join(FIXTURES, 'document.docx'))).toMatchObject({ detected: 'docx', match: true });
    const bytes = readFileSync(join(FIXTURES, 'image.png'));
    expect(await detect(bytes, { filename: 'photo.jpg' })).toMatchObject({
      declared: 'jpg',
      detected: 'png',
      match: false,
    });
  });
});

describe('convert', () => {
  it('writes next to a path input, or into the folder given, and reports progress', async () => {
    const out = dir();
    const seen: number[] = [];
    const r = await convert(join(FIXTURES, 'image.png'), {
      to: 'webp',
      output: `${out}/`,
      onProgress: (p) => seen.push(p.percent),
    });
    expect(r).toMatchObject({ from: 'png', to: 'webp', key: 'png-webp' });
    expect(r.outputs).toEqual([join(out, 'image.webp')]);
    expect(readFileSync(r.outputs[0]!).subarray(8, 12).toString()).toBe('WEBP');
    expect(seen.at(-1)).toBe(100);
  });

  it('converts bytes to the file path given', async () => {
    const out = join(dir(), 'table.json');
    const r = await convert(Buffer.from('name,n\nada,1\n'), {
      to: 'json',
      filename: 'table.csv',
      output: out,
    });
    expect(r.outputs).toEqual([out]);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([{ name: 'ada', n: 1 }]);
  });

  it('refuses bytes without an output, an unknown format and a cancelled run with codes', async () => {
    await expect(convert(Buffer.from('x'), { to: 'pdf' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(convert(join(FIXTURES, 'image.png'), { to: 'nope', output: dir() })).rejects.toBeInstanceOf(
      FileconvError,
    );
    const aborted = AbortSignal.abort();
    await expect(
      convert(join(FIXTURES, 'image.png'), { to: 'jpg', output: dir(), signal: aborted }),
    ).rejects.toMatchObject({ code: 'CONVERT_FAILED' });
  });
});

describe('catalog', () => {
  it('lists what the installed engines do', async () => {
    const pairs = await catalog();
    expect(pairs.find((p) => p.key === 'docx-pdf')).toMatchObject({
      from: 'docx',
      to: 'pdf',
      family: 'document',
    });
  });
});

describe('createApp', () => {
  it('runs the whole API through app.fetch alone: upload, poll, download', async () => {
    const api = await createApp({ dataDir: dir(), rateLimit: 0, log: () => {} });
    try {
      const form = new FormData();
      form.set('meta', new Blob([JSON.stringify({ conversion: 'png-jpg' })], { type: 'application/json' }));
      form.set('file', new Blob([readFileSync(join(FIXTURES, 'image.png'))]), 'image.png');
      const submitted = await api.fetch(
        new Request('http://fileconv.test/api/public/convert', { method: 'POST', body: form }),
      );
      expect(submitted.status).toBe(202);
      const { request_id: id } = (await submitted.json()) as { request_id: string };
      let body: { status: string; artifacts?: { download: string }[] };
      do {
        const polled = await api.fetch(new Request(`http://fileconv.test/api/public/requests/${id}?wait=10`));
        body = (await polled.json()) as typeof body;
      } while (body.status === 'running');
      expect(body.status).toBe('succeeded');
      const redirect = await api.fetch(new Request(body.artifacts![0]!.download));
      expect(redirect.status).toBe(302);
      const file = await api.fetch(new Request(redirect.headers.get('location')!));
      expect(Buffer.from(await file.arrayBuffer()).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    } finally {
      await api.close();
    }
  });
});

describe('createServer', () => {
  it('listens on its own port with its own data folder and limits', async () => {
    const data = dir();
    const server = await createServer({ dataDir: data, port: 0, maxUpload: 1024, log: () => {} });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const form = new FormData();
      form.set('meta', new Blob([JSON.stringify({ conversion: 'png-jpg' })], { type: 'application/json' }));
      form.set('file', new Blob([Buffer.alloc(4096)]), 'big.png');
      const refused = await fetch(`${server.url}/api/public/convert`, { method: 'POST', body: form });
      expect(refused.status).toBe(413);
      expect(existsSync(join(data, 'fileconv.db'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

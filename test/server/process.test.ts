import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { Client, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  blobFiles,
  type ChildServer,
  filePart,
  get,
  type Json,
  makeDocx,
  multipart,
  removeDir,
  startChildServer,
  submit,
  tempDir,
  waitDone,
  waitStarted,
} from './helpers.js';

const dirs: string[] = [];
const children: ChildServer[] = [];
afterAll(() => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  for (const d of dirs) removeDir(d);
});

function dataDir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

async function start(dir: string, extra: string[] = []): Promise<ChildServer> {
  const s = await startChildServer(dir, extra);
  children.push(s);
  return s;
}

describe('restarts', () => {
  it('resumes a conversion that was running when the process was killed', async () => {
    const dir = dataDir();
    const docx = await makeDocx(dir);
    const first = await start(dir, ['--concurrency', '1']);
    const id = await submit(first.url, 'docx-pdf', 'report.docx', docx);
    await waitStarted(first.url, id);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await start(dir, ['--concurrency', '1']);
    const done = await waitDone(second.url, id);
    expect(done.status).toBe('succeeded');
    expect(done.artifacts.map((a: { name: string }) => a.name)).toEqual(['pdf']);
    const kinds = (await get(`${second.url}/api/public/requests/${id}/timeline`)).json.events.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toContain('resumed');
    const pdf = await request(String((await get(done.artifacts[0].download)).headers.location));
    expect(
      Buffer.from(await pdf.body.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    // The input is deleted once the conversion ended.
    await expect.poll(() => blobFiles(dir).filter((f) => f.includes('/inputs/'))).toEqual([]);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('on SIGTERM refuses writes, finishes the running conversion, then exits 0', async () => {
    const dir = dataDir();
    // Long enough that the conversion is still running when the signal has been handled.
    const docx = await makeDocx(dir, 6000);
    const server = await start(dir, ['--concurrency', '1']);
    const id = await submit(server.url, 'docx-pdf', 'report.docx', docx);
    await waitStarted(server.url, id);
    server.child.kill('SIGTERM');
    // The signal is handled asynchronously: writes turn to 503 once it has been.
    // Each try on a connection of its own, so the server closing idle ones cannot interfere, and
    // kept alive, so the server reads the whole body after refusing it instead of resetting the
    // connection on unread bytes.
    const detect = async () => {
      const client = new Client(server.url);
      try {
        const { body, contentType } = multipart([filePart('a.csv', 'a,b\n1,2\n')]);
        const res = await client.request({
          path: '/api/public/detect',
          method: 'POST',
          body,
          headers: { 'content-type': contentType },
        });
        const text = await res.body.text();
        return { status: res.statusCode, headers: res.headers, json: JSON.parse(text) as Json };
      } finally {
        await client.close();
      }
    };
    let refused = await detect();
    for (let i = 0; i < 40 && refused.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      refused = await detect();
    }
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe('CONVERT_API_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('60');
    expect(await server.exited).toBe(0);

    const again = await start(dir);
    const done = (await get(`${again.url}/api/public/requests/${id}`)).json;
    expect(done.status).toBe('succeeded');
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });
});

function vm(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/** A multipart body with a `size`-byte file part, generated chunk by chunk (never held in memory). */
async function* bigUpload(boundary: string, size: number): AsyncGenerator<Buffer> {
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const chunk = randomBytes(1024 * 1024);
  let left = size;
  while (left > 0) {
    const n = Math.min(left, chunk.length);
    yield n === chunk.length ? chunk : chunk.subarray(0, n);
    left -= n;
  }
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

describe('large uploads', () => {
  it('streams a 200 MiB upload to disk with flat memory, and refuses 201 MiB leaving no file', async () => {
    const dir = dataDir();
    const server = await start(dir);
    const pid = server.child.pid!;
    const boundary = 'bigboundary';
    // Warm up the routes, the detector and the stream buffers with a 16 MiB upload before measuring:
    // what is measured is how memory grows with the size of an upload.
    const warm = await request(`${server.url}/api/public/detect`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.from(bigUpload(boundary, 16 * 1024 * 1024)),
    });
    expect(warm.statusCode).toBe(200);
    await warm.body.text();
    const baseline = vm(pid, 'VmRSS');
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, vm(pid, 'VmRSS'));
    }, 20);
    const size = 200 * 1024 * 1024;
    const res = await request(`${server.url}/api/public/detect`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.from(bigUpload(boundary, size)),
    });
    const body = (await res.body.json()) as Json;
    clearInterval(sampler);
    peak = Math.max(peak, vm(pid, 'VmRSS'));
    const growth = peak - baseline;
    console.log(
      `200 MiB upload: RSS ${Math.round(baseline / 2 ** 20)} MiB -> peak ${Math.round(peak / 2 ** 20)} MiB (+${(growth / 2 ** 20).toFixed(1)} MiB); VmHWM ${Math.round(vm(pid, 'VmHWM') / 2 ** 20)} MiB`,
    );
    expect(res.statusCode).toBe(200);
    expect(body.status).toBe('succeeded');
    expect(growth).toBeLessThan(64 * 1024 * 1024);
    expect(blobFiles(dir)).toEqual([]);

    const over = await request(`${server.url}/api/public/detect`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.from(bigUpload(boundary, size + 1024 * 1024)),
    });
    const overBody = (await over.body.json()) as Json;
    expect(over.statusCode).toBe(413);
    expect(overBody.error.code).toBe('INTAKE_FAILED');
    expect(blobFiles(dir)).toEqual([]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

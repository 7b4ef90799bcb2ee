import { readdirSync, readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blobFiles,
  get,
  metaPart,
  multipart,
  removeDir,
  startTestServer,
  submit,
  type TestServer,
  waitDone,
} from './helpers.js';

let server: TestServer;
let host: string;
let port: number;

const keptAlive = getGlobalDispatcher();

beforeAll(async () => {
  // With a 2 s idle limit the server closes an idle kept-alive connection after 1 s; a request
  // sent on it at that moment dies with "other side closed" (a race every HTTP client has, and
  // retries for idempotent requests only), so this file's requests each get a connection of
  // their own.
  setGlobalDispatcher(new Agent({ pipelining: 0 }));
  // Short limits so a test sees them act in seconds; one conversion slot, to show none is held.
  server = await startTestServer({
    concurrency: '1',
    uploadTimeout: '2s',
    uploadMinRate: '1KiB',
    idleTimeout: '2s',
  });
  // Probing the engines takes seconds of server think time, which a 2 s idle limit would cut.
  await server.context.engine.catalog();
  const url = new URL(server.url);
  host = url.hostname;
  port = Number(url.port);
});
afterAll(async () => {
  setGlobalDispatcher(keptAlive);
  await server.stop();
  removeDir(server.dataDir);
});

/** Files this process has open under `dir` (the server runs in this process). */
function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // closed while listing
    }
  }
  return open;
}

function rawConnection(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, host, () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves with what the server sent once it closes the connection. */
function untilClosed(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => {});
  return new Promise((resolve) =>
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1'))),
  );
}

describe('slow clients', () => {
  it('cuts off an upload that trickles a byte a second, keeps no file, and holds no slot', async () => {
    const { body, contentType } = multipart([
      metaPart({ conversion: 'csv-json' }),
      { name: 'file', filename: 'slow.csv', contentType: 'text/csv', value: Buffer.alloc(4096, 'a') },
    ]);
    const socket = await rawConnection();
    const answer = untilClosed(socket);
    socket.write(
      `POST /api/public/convert HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // Everything up to the file's content, then one byte a second.
    const fileStart = body.indexOf('\r\n\r\naaa') + 4;
    socket.write(body.subarray(0, fileStart));
    let sent = fileStart;
    const trickle = setInterval(() => {
      if (!socket.destroyed && sent < body.length) socket.write(body.subarray(sent, ++sent));
    }, 1000);
    try {
      // While the trickle runs, the one conversion slot takes other work.
      const id = await submit(server.url, 'csv-json', 'fast.csv', 'a,b\n1,2\n');
      expect((await waitDone(server.url, id)).status).toBe('succeeded');

      const text = await answer;
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toContain('"code":"INTAKE_FAILED"');
      expect(sent - fileStart).toBeLessThan(30);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
    // The partial upload is gone and the server keeps working.
    await expect.poll(() => blobFiles(server.dataDir).filter((f) => f.includes('/inputs/'))).toEqual([]);
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('closes a download nobody reads and lets go of its file', async () => {
    // About 25 MB of JSON: far more than the socket buffers on both ends hold.
    const row = 'alpha,beta,gamma,delta\n';
    const csv = `a,b,c,d\n${row.repeat(300_000)}`;
    const id = await submit(server.url, 'csv-json', 'big.csv', csv);
    const done = await waitDone(server.url, id);
    expect(done.status).toBe('succeeded');
    const link = new URL(String((await get(done.artifacts[0].download)).headers.location));

    const socket = await rawConnection();
    socket.pause(); // never read: the server's writes stall once the buffers are full
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(`GET ${link.pathname}${link.search} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    const artifacts = `${server.dataDir}/blobs`;
    // The download is open, holding its file...
    for (let i = 0; i < 50 && openFilesUnder(artifacts).length === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(openFilesUnder(artifacts)).not.toEqual([]);
    // ...until the idle timeout closes the connection and the file with it.
    for (let i = 0; i < 100 && openFilesUnder(artifacts).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(openFilesUnder(artifacts)).toEqual([]);
    socket.destroy();
    await closed;
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);
});

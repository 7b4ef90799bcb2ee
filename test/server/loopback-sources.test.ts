import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTestLoopback, TEST_LOOPBACK_ENV } from '../../src/intake/loopback.js';
import { closeServer, startCanary, startOrigin } from '../intake/servers.js';
import {
  type ChildServer,
  get,
  metaPart,
  post,
  removeDir,
  startChildServer,
  startTestServer,
  tempDir,
  waitDone,
} from './helpers.js';

const CSV = 'name,qty\napple,3\npear,5\n';
const hasIpv6Loopback = Object.values(networkInterfaces()).some((list) =>
  list?.some((i) => i.family === 'IPv6' && i.address === '::1'),
);

let origin: Awaited<ReturnType<typeof startOrigin>>;
let canary: Awaited<ReturnType<typeof startCanary>>;
let server: ChildServer;
const dir = tempDir();

beforeAll(async () => {
  canary = await startCanary();
  origin = await startOrigin((req, res) => {
    if (req.url === '/table.csv') {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(CSV);
    } else if (req.url === '/hop') {
      // A redirect from the allowed origin to another loopback address must still be refused.
      res.writeHead(302, { location: `http://127.0.0.2:${canary.port}/x.csv` });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server = await startChildServer(dir, ['--rate-limit', '0'], { [TEST_LOOPBACK_ENV]: '1' });
}, 90_000);

afterAll(async () => {
  if (server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await closeServer(origin.server);
  await closeServer(canary.server);
  removeDir(dir);
});

const fromUrl = (base: string, url: string) =>
  post(`${base}/api/public/convert`, [metaPart({ source_url: url, conversion: 'csv-json' })]);

describe(`${TEST_LOOPBACK_ENV}=1`, () => {
  it('is announced loudly at start', async () => {
    for (let i = 0; i < 50 && !server.output.join('').includes(TEST_LOOPBACK_ENV); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(server.output.join('')).toMatch(/WARNING: FILECONV_TEST_ALLOW_LOOPBACK_SOURCES=1 is set/);
  });

  it('converts a file served on 127.0.0.1, end to end', async () => {
    const res = await fromUrl(server.url, `${origin.base}/table.csv`);
    expect(res.status, res.text).toBe(202);
    const done = await waitDone(server.url, res.json.request_id);
    expect(done.status).toBe('succeeded');
    const link = String((await get(done.artifacts[0].download)).headers.location);
    const json = JSON.parse(await (await request(link)).body.text());
    expect(json).toEqual([
      { name: 'apple', qty: 3 },
      { name: 'pear', qty: 5 },
    ]);
  });

  it.skipIf(!hasIpv6Loopback)('converts a file served on [::1] (needs IPv6 loopback)', async () => {
    const v6 = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(CSV);
    });
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    try {
      const res = await fromUrl(server.url, `http://[::1]:${(v6.address() as AddressInfo).port}/t.csv`);
      expect(res.status, res.text).toBe(202);
      expect((await waitDone(server.url, res.json.request_id)).status).toBe('succeeded');
    } finally {
      await closeServer(v6);
    }
  });

  it('still blocks every other private and loopback address, redirects included', async () => {
    const port = canary.port;
    const urls = [
      `http://127.0.0.2:${port}/x.csv`,
      `http://localhost:${port}/x.csv`,
      `http://[::ffff:127.0.0.1]:${port}/x.csv`,
      `http://10.0.0.1:${port}/x.csv`,
      `http://192.168.1.1:${port}/x.csv`,
      `http://172.16.0.1:${port}/x.csv`,
      `http://169.254.169.254:${port}/latest/meta-data`,
      `http://100.64.0.1:${port}/x.csv`,
      `http://[fd00::1]:${port}/x.csv`,
      `http://[fe80::1]:${port}/x.csv`,
      `http://0.0.0.0:${port}/x.csv`,
      `${origin.base}/hop`,
    ];
    for (const url of urls) {
      const res = await fromUrl(server.url, url);
      expect([res.status, res.json?.error?.code], url).toEqual([400, 'SOURCE_URL_BLOCKED']);
    }
    expect(canary.connections()).toBe(0);
  });

  it('opens exactly 127.0.0.1 and ::1, in any spelling', () => {
    for (const a of ['127.0.0.1', '127.1', '0x7f.0.0.1', '::1', '[::1]', '0:0:0:0:0:0:0:1'])
      expect(isTestLoopback(a), a).toBe(true);
    for (const a of ['127.0.0.2', '::ffff:127.0.0.1', 'localhost', '10.0.0.1', '::', '0.0.0.0'])
      expect(isTestLoopback(a), a).toBe(false);
  });
});

describe('without the setting', () => {
  it('refuses a source URL on 127.0.0.1', async () => {
    const plain = await startTestServer({ rateLimit: '0' });
    try {
      const res = await fromUrl(plain.url, `${origin.base}/table.csv`);
      expect([res.status, res.json?.error?.code]).toEqual([400, 'SOURCE_URL_BLOCKED']);
    } finally {
      await plain.stop();
      removeDir(plain.dataDir);
    }
  });
});

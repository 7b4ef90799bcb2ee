import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { idleLimitOnClientOnly } from '../../src/server/http/idle-limit.js';

/**
 * The idle limit cuts a client that goes quiet, not the server's own thinking: a real HTTP server
 * with a 300 ms idle limit, whose handler takes 900 ms before it answers (as a loaded server
 * filing an upload, or a long poll, does), and one that starts its answer and then stalls it.
 */
const IDLE_MS = 300;
let server: Server | undefined;
const fresh = new Agent({ pipelining: 0 });

async function start(thinkFirst: boolean, limited: boolean): Promise<string> {
  server = createServer((req, res) => {
    if (limited) idleLimitOnClientOnly(req, res, IDLE_MS);
    req.resume();
    req.on('end', () => {
      if (thinkFirst) {
        setTimeout(() => res.end('thought it over'), 900);
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('a start');
        // ...and nothing more: a stalled answer is still cut by the limit.
      }
    });
  });
  server.timeout = IDLE_MS;
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('the idle limit', () => {
  it('does not cut a request while the server works on it, with or without a body', async () => {
    const url = await start(true, true);
    const get = await request(url, { dispatcher: fresh });
    expect(await get.body.text()).toBe('thought it over');
    const post = await request(url, { method: 'POST', body: 'a small upload', dispatcher: fresh });
    expect(await post.body.text()).toBe('thought it over');
  });

  it('cuts such a request without it: the socket timer alone counts the thinking too', async () => {
    const url = await start(true, false);
    await expect(request(url, { dispatcher: fresh }).then((r) => r.body.text())).rejects.toThrow(
      /other side closed|socket/i,
    );
  });

  it('still cuts an answer that stalls after it started', async () => {
    const url = await start(false, true);
    const res = await request(url, { dispatcher: fresh });
    await expect(res.body.text()).rejects.toThrow();
  });
});

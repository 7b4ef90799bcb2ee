import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filePart,
  get,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  waitDone,
} from '../server/helpers.js';
import { pngBomb } from './build.js';
import { billionLaughsEntities } from './cases-images.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

/** Inputs whose headers claim far more than they hold: each must end in a clear refusal. */
const CLAIMS = [
  { name: 'huge.png', conversion: 'png-jpg', bytes: pngBomb(65_535, 65_535) },
  {
    name: 'huge.svg',
    conversion: 'svg-png',
    bytes: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="100%" height="100%"/></svg>',
    ),
  },
  {
    name: 'deep.json',
    conversion: 'json-yaml',
    bytes: Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
  },
  {
    name: 'laughs.xml',
    conversion: 'xml-json',
    bytes: Buffer.from(`<?xml version="1.0"?><!DOCTYPE r [${billionLaughsEntities()}]><r>&l9;</r>`),
  },
];

describe('resource claims through the server', () => {
  it('refuses each with a clear code while /healthz answers throughout', async () => {
    let polling = true;
    const health: number[] = [];
    const poller = (async () => {
      while (polling) {
        health.push((await get(`${server.url}/healthz`)).status);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const ended = await Promise.all(
      CLAIMS.map(async (c) => {
        const res = await post(`${server.url}/api/public/convert`, [
          metaPart({ conversion: c.conversion }),
          filePart(c.name, c.bytes),
        ]);
        expect(res.status, res.text).toBe(202);
        return { name: c.name, done: await waitDone(server.url, res.json.request_id) };
      }),
    );
    polling = false;
    await poller;
    for (const { name, done } of ended) {
      // The XML's DTD is dropped unread, so its entity reference stays text: a small, right output.
      if (name === 'laughs.xml' && done.status === 'succeeded') {
        expect(done.artifacts[0].size).toBeLessThan(10_000);
        continue;
      }
      expect(done.status, name).toBe('failed');
      expect(['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'OUTPUT_TOO_LARGE', 'INPUT_TOO_LARGE'], name).toContain(
        done.error.code,
      );
      expect(done.error.message.length, name).toBeGreaterThan(10);
    }
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((s) => s === 200)).toBe(true);
  });
});

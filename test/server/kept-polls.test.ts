import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/observability/logging.js';
import {
  get,
  type Json,
  jsonLineSink,
  removeDir,
  sample,
  startTestServer,
  submit,
  type TestServer,
  waitDone,
} from './helpers.js';

// A poll of a finished request is answered on the node socket before Hono (kept-polls.ts): these
// check that such an answer is the one the route would give, logged and counted the same way.
const lines: Json[] = [];
let server: TestServer;
let id: string;
let done: Json;
beforeAll(async () => {
  const sink = jsonLineSink(lines);
  server = await startTestServer(
    {},
    { logger: createLogger({ format: 'json', level: 'info', destination: sink }) },
  );
  id = await submit(server.url, 'csv-json', 'k.csv', 'a,b\n1,2\n');
  done = await waitDone(server.url, id);
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

const pollCount = async () =>
  sample((await get(`${server.url}/metrics`)).text, 'fileconv_http_requests_total', {
    method: 'GET',
    route: '/api/public/requests/:id',
    status: '200',
  }) ?? 0;

describe('polls of finished requests answered before the middleware chain', () => {
  it('answers the same bytes and headers as the route, with its log line and count', async () => {
    expect(done.status).toBe('succeeded');
    expect(server.context.finishedAnswers.get(id, server.url)).toBeDefined();
    const before = await pollCount();
    const kept = await get(`${server.url}/api/public/requests/${id}`, { 'x-request-id': 'kept-poll-1' });
    // An extra query parameter is not the kept path's: the route answers this one.
    const routed = await get(`${server.url}/api/public/requests/${id}?wait=0&extra=1`);
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(routed.text);
    const names = (a: typeof kept) =>
      Object.keys(a.headers)
        .filter((h) => h !== 'date')
        .sort();
    expect(names(kept)).toEqual(names(routed));
    for (const h of ['content-type', 'cache-control', 'content-length'])
      expect(kept.headers[h]).toBe(routed.headers[h]);
    expect(kept.headers['x-request-id']).toBe('kept-poll-1');
    expect(routed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(await pollCount()).toBe(before + 2);
    const line = lines.find((l) => l.msg === 'http' && l.request_id === 'kept-poll-1');
    expect(line).toMatchObject({
      method: 'GET',
      route: '/api/public/requests/:id',
      status: 200,
      identity: 'anonymous',
      level: 30,
    });
    expect(typeof line.duration_ms).toBe('number');
  });

  it('leaves to the route what it must check: keys, wait, methods', async () => {
    const bad = await get(`${server.url}/api/public/requests/${id}`, { authorization: 'Bearer fck_notAKey' });
    expect(bad.status).toBe(401);
    expect(bad.json.error.code).toBe('INVALID_API_KEY');
    for (const wait of ['31', 'abc', '-1']) {
      const refused = await get(`${server.url}/api/public/requests/${id}?wait=${wait}`);
      expect(refused.status).toBe(400);
      expect(refused.json.error.code).toBe('INVALID_REQUEST');
    }
    expect((await get(`${server.url}/api/public/requests/${id}?wait=30`)).text).toBe(
      (await get(`${server.url}/api/public/requests/${id}`)).text,
    );
    const head = await get(`${server.url}/api/public/requests/${id}`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const put = await get(`${server.url}/api/public/requests/${id}`, {}, 'PUT');
    expect(put.status).toBe(405);
  });
});

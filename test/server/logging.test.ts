import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/server/observability/logging.js';
import {
  get,
  type Json,
  jsonLineSink,
  removeDir,
  startChildServer,
  startTestServer,
  submit,
  type TestServer,
  tempDir,
  waitDone,
} from './helpers.js';

const lines: Json[] = [];
let server: TestServer;
beforeAll(async () => {
  const sink = jsonLineSink(lines);
  server = await startTestServer(
    {},
    { logger: createLogger({ format: 'json', level: 'info', destination: sink }) },
  );
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

describe('structured logs', () => {
  it('writes one JSON line per HTTP answer, without keys, tokens or IPs', async () => {
    const secretKey = 'fck_thisIsNotARealKeyButLooksLikeOne000000000';
    const refused = await get(`${server.url}/api/public/stats`, {
      authorization: `Bearer ${secretKey}`,
      'x-forwarded-for': '203.0.113.77',
    });
    expect(refused.status).toBe(401);
    const ok = await get(`${server.url}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA?wait=0`, {
      'x-request-id': 'proxy-req-42',
    });
    expect(ok.status).toBe(404);
    expect(ok.headers['x-request-id']).toBe('proxy-req-42');
    const http = lines.filter((l) => l.msg === 'http');
    const first = http.find((l) => l.route === '/api/public/stats');
    expect(first).toMatchObject({ method: 'GET', status: 401, error: 'INVALID_API_KEY', level: 30 });
    expect(first.request_id).toBe(refused.headers['x-request-id']);
    expect(first.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof first.duration_ms).toBe('number');
    const second = http.find((l) => l.request_id === 'proxy-req-42');
    expect(second).toMatchObject({
      route: '/api/public/requests/:id',
      status: 404,
      identity: 'anonymous',
    });
    const all = JSON.stringify(lines);
    for (const leak of [secretKey, '203.0.113.77', '127.0.0.1', 'AAAAAAAAAAAAAAAAAAAAAA', 'wait=0'])
      expect(all).not.toContain(leak);
  });

  it('writes one line per conversion: key, engines, outcome, duration', async () => {
    const id = await submit(server.url, 'csv-json', 'fruit.csv', 'name,qty\napple,3\n');
    expect((await waitDone(server.url, id)).status).toBe('succeeded');
    const convert = lines.find((l) => l.msg === 'http' && l.route === '/api/public/convert');
    expect(convert).toMatchObject({ method: 'POST', status: 202, identity: 'anonymous' });
    // Observers hear of the end just after it is stored, so a poll can see it first.
    const conv = await vi.waitFor(() => {
      const line = lines.find((l) => l.msg === 'conversion' && l.request_id === id);
      if (!line) throw new Error('no conversion line yet');
      return line;
    });
    expect(conv).toMatchObject({ conversion: 'csv-json', outcome: 'succeeded', level: 30 });
    expect(conv.engines.length).toBeGreaterThan(0);
    expect(typeof conv.duration_ms).toBe('number');
    // Neither is the owner token the server issued with the 202.
    expect(JSON.stringify(lines)).not.toMatch(/fco_/);
  }, 60_000);
});

describe('fileconv serve --log-format, --log-level', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  async function run(flags: string[]): Promise<string> {
    const dir = tempDir('fileconv-logs-');
    dirs.push(dir);
    const child = await startChildServer(dir, flags);
    await get(`${child.url}/healthz`);
    await get(`${child.url}/no/such/route`);
    child.child.kill('SIGTERM');
    await child.exited;
    return child.output.join('');
  }

  it('prints JSON lines, or pretty lines, at the level asked for', async () => {
    const json = await run(['--log-format', 'json']);
    const records = json
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(records.find((r) => r.route === '/healthz')).toMatchObject({ msg: 'http', status: 200 });
    expect(records.find((r) => r.route === 'unmatched')).toMatchObject({ status: 404 });
    const pretty = await run(['--log-format', 'pretty']);
    expect(pretty).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}http request_id=\S+ method=GET route=\/healthz status=200 /m,
    );
    const quiet = await run(['--log-format', 'json', '--log-level', 'warn']);
    expect(quiet).not.toContain('"msg":"http"');
  }, 120_000);

  it('refuses an unknown format or level', async () => {
    for (const flags of [
      ['--log-format', 'xml'],
      ['--log-level', 'loud'],
    ]) {
      const dir = tempDir('fileconv-logs-');
      dirs.push(dir);
      await expect(startChildServer(dir, flags)).rejects.toThrow(/server exited 2: .*must be one of/s);
    }
  }, 60_000);
});

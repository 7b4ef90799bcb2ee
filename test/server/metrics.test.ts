import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filePart,
  get,
  metaPart,
  post,
  removeDir,
  sample,
  startTestServer,
  submit,
  type TestServer,
  waitDone,
} from './helpers.js';

describe('GET /metrics', () => {
  let server: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    // One conversion a day, so the second one is a quota refusal.
    server = await startTestServer({ quotaAnon: 'conversions=1,voice=1,file_checks=10' });
    other = await startTestServer();
  });
  afterAll(async () => {
    await Promise.all([server.stop(), other.stop()]);
    removeDir(server.dataDir);
    removeDir(other.dataDir);
  });

  it('counts requests, conversions, durations, bytes and quota refusals in Prometheus text', async () => {
    const csv = 'name,qty\napple,3\npear,5\n';
    const id = await submit(server.url, 'csv-json', 'fruit.csv', csv);
    const done = await waitDone(server.url, id);
    expect(done.status).toBe('succeeded');
    const file = await get(done.artifacts[0].download, {}, 'GET');
    expect(file.status).toBe(302);
    const served = await get(file.headers.location as string);
    expect(served.status).toBe(200);
    const refused = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'csv-json' }),
      filePart('again.csv', csv),
    ]);
    expect(refused.status).toBe(429);
    await get(`${server.url}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA`);
    await get(`${server.url}/no/such/route/${id}`);
    await get(`${server.url}/api/public/requests/recent`, { 'x-owner-token': `fco_${'a'.repeat(43)}` });
    await get(`${server.url}/metrics`);

    const res = await get(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = res.text;
    const route = (r: string, status: string, method = 'GET') =>
      sample(m, 'fileconv_http_requests_total', { method, route: r, status });
    expect(route('/api/public/convert', '202', 'POST')).toBe(1);
    expect(route('/api/public/convert', '429', 'POST')).toBe(1);
    expect(route('/api/public/requests/:id', '404')).toBe(1);
    expect(route('/api/public/requests/:id', '200')).toBeGreaterThanOrEqual(1);
    expect(route('/files/:opaque', '200')).toBe(1);
    expect(route('unmatched', '404')).toBe(1);
    expect(route('/api/public/requests/recent', '200')).toBe(1);
    expect(route('/metrics', '200')).toBe(1);
    // Raw ids never become labels.
    expect(m).not.toContain(id);
    expect(sample(m, 'fileconv_conversions_total', { conversion: 'csv-json', outcome: 'succeeded' })).toBe(1);
    expect(
      sample(m, 'fileconv_conversion_duration_seconds_count', {
        conversion: 'csv-json',
        outcome: 'succeeded',
      }),
    ).toBe(1);
    const engine = /fileconv_engine_step_duration_seconds_count\{engine="([^"]+)",outcome="done"\} 1/.exec(m);
    expect(engine?.[1]).toBeTruthy();
    expect(done.artifacts[0].size).toBeGreaterThan(0);
    // Both uploads were received (the refused one is refused after its body is read).
    expect(sample(m, 'fileconv_uploaded_bytes_total')).toBe(2 * Buffer.byteLength(csv));
    expect(sample(m, 'fileconv_served_bytes_total')).toBe(done.artifacts[0].size);
    expect(sample(m, 'fileconv_quota_refusals_total', { route: '/api/public/convert' })).toBe(1);
    expect(sample(m, 'fileconv_queue_depth')).toBe(0);
    expect(sample(m, 'fileconv_conversions_running')).toBe(0);
  }, 60_000);

  it('keeps one registry per server', async () => {
    const res = await get(`${other.url}/metrics`);
    expect(res.status).toBe(200);
    expect(sample(res.text, 'fileconv_conversions_total', { conversion: 'csv-json' })).toBeUndefined();
    expect(sample(res.text, 'fileconv_uploaded_bytes_total')).toBe(0);
  });
});

describe('GET /metrics with FILECONV_METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { metricsToken: 's3cret-scrape-token' });
  });
  afterAll(async () => {
    await server.stop();
    removeDir(server.dataDir);
  });

  it('answers only the bearer of the token', async () => {
    for (const auth of [undefined, 'Basic s3cret-scrape-token']) {
      const res = await get(`${server.url}/metrics`, auth ? { authorization: auth } : {});
      expect({ auth, status: res.status, code: res.json?.error?.code }).toEqual({
        auth,
        status: 401,
        code: 'METRICS_TOKEN_REQUIRED',
      });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    // Any other Bearer value is read as an API key, refused as on every route.
    for (const auth of ['Bearer wrong', 'Bearer s3cret-scrape-toke']) {
      const res = await get(`${server.url}/metrics`, { authorization: auth });
      expect({ auth, status: res.status, code: res.json?.error?.code }).toEqual({
        auth,
        status: 401,
        code: 'INVALID_API_KEY',
      });
    }
    const ok = await get(`${server.url}/metrics`, { authorization: 'Bearer s3cret-scrape-token' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# TYPE fileconv_http_requests_total counter');
    // The token is not an API key: other routes still work without one.
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  });
});

// fileconv/client against a started server: upload, long-poll, download, errors, and the retry
// of a write the per-minute limit refused with Retry-After.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { renderClientTypes } from '../../src/docs/client-types.js';
import { FileconvError } from '../../src/errors/index.js';
import { ROOT, removeDir, startTestServer, type TestServer, tempDir } from '../server/helpers.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'detect');
let server: TestServer;
let limited: TestServer;
const dir = tempDir('fileconv-client-');

beforeAll(async () => {
  server = await startTestServer();
  // One write a second: the second write of a burst is refused with Retry-After: 1.
  limited = await startTestServer({ rateLimit: '1' }, { writeWindowMs: 1000 });
});

afterAll(async () => {
  for (const s of [server, limited]) {
    await s?.stop();
    removeDir(s?.dataDir ?? '');
  }
  removeDir(dir);
});

describe('createClient', () => {
  it("has the types npm run docs makes from docs/openapi.json (which test/server/openapi.test.ts holds to the server's)", async () => {
    const document = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    const written = readFileSync(join(ROOT, 'src', 'client', 'api-types.ts'), 'utf8');
    expect(written).toBe(await renderClientTypes(document));
  });

  it('uploads, long-polls the request until it ends, and downloads its artifact', async () => {
    const client = createClient({ server: `${server.url}/` });
    const input = join(dir, 'items.csv');
    writeFileSync(input, 'name,qty\napple,3\n');
    const seen: string[] = [];
    // wait: 0 answers 202 at once, so the end is reached through GET ...?wait=30.
    const done = await client.convert(input, {
      from: 'csv',
      to: 'json',
      wait: 0,
      onStatus: (r) => seen.push(r.status),
    });
    expect(done).toMatchObject({ status: 'succeeded', conversion: 'csv-json' });
    expect(seen.at(-1)).toBe('succeeded');
    const artifact = done.artifacts!.find((a) => a.name === 'json')!;
    const out = await client.download(artifact, join(dir, 'out', 'items.json'));
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([{ name: 'apple', qty: 3 }]);
    expect((await client.timeline(done.request_id)).events.map((e) => e.kind)).toContain('downloaded');
  });

  it('detects bytes and reads the catalog', async () => {
    const client = createClient({ server: server.url });
    const report = await client.detect(readFileSync(join(FIXTURES, 'image.png')), { filename: 'photo.jpg' });
    expect(report).toMatchObject({ declared: 'jpg', detected: 'png', match: false });
    expect((await client.catalog()).keys['csv-json']).toMatchObject({ lossy: false });
    expect((await client.conversions()).conversions.map((c) => c.key)).toContain('csv-json');
  });

  it('rejects with the error codes a local run has', async () => {
    const client = createClient({ server: server.url });
    const failed = client.convert(Buffer.from('{"a": [1'), {
      filename: 'broken.json',
      from: 'json',
      to: 'yaml',
    });
    await expect(failed).rejects.toBeInstanceOf(FileconvError);
    await expect(failed).rejects.toMatchObject({
      code: expect.stringMatching(/^(CONVERT_FAILED|MALFORMED_DOCUMENT)$/),
    });
    await expect(client.convert(Buffer.from('a,b\n'), { from: 'csv', to: 'mp3' })).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONVERSION',
    });
    await expect(
      createClient({ server: server.url, key: 'fck_wrong' }).detect(Buffer.from('x'), { filename: 'a.txt' }),
    ).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    await expect(createClient({ server: 'http://127.0.0.1:9' }).catalog()).rejects.toMatchObject({
      code: 'CONVERT_API_UNAVAILABLE',
    });
  });

  it('waits for Retry-After and sends a write again when the per-minute limit refuses it', async () => {
    const statuses: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };
    const client = createClient({ server: limited.url, fetch: counting });
    const csv = Buffer.from('a,b\n1,2\n');
    // Sent together, so both fall in one window: one is admitted, the other refused, then retried.
    const reports = await Promise.all([
      client.detect(csv, { filename: 'one.csv' }),
      client.detect(csv, { filename: 'two.csv' }),
    ]);
    expect(reports.map((r) => r.detected)).toEqual(['csv', 'csv']);
    expect(statuses.sort()).toEqual([200, 200, 429]);

    // With no retries, the refusal is the caller's, with its reset time.
    const impatient = createClient({ server: limited.url, retry: { retries: 0 } });
    const outcomes = await Promise.allSettled(
      ['three.csv', 'four.csv'].map((filename) => impatient.detect(csv, { filename })),
    );
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect(refused?.reason).toMatchObject({
      code: 'RATE_LIMITED',
      extra: { reset_at: expect.any(String), status: 429 },
    });
  });
});

import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/store/s3.js';
import { s3ClientConfig } from '../../src/store/s3-settings.js';
import { startTestS3, type TestS3 } from '../support/s3.js';
import {
  blobFiles,
  type ChildServer,
  filePart,
  get,
  metaPart,
  post,
  removeDir,
  startChildServer,
  submit,
  tempDir,
  waitDone,
} from './helpers.js';

const CSV = 'name,count\nalpha,1\nbeta,2\n';
const JSON_ROWS = [
  { name: 'alpha', count: 1 },
  { name: 'beta', count: 2 },
];

let s3: TestS3;
let dataDir: string;
let running: ChildServer | undefined;
/** The objects of the served prefix, read straight from the bucket. */
let bucket: S3BlobStore;

async function serve(downloads: 'signed' | 'presigned', retention = '1h'): Promise<string> {
  await stop();
  running = await startChildServer(
    dataDir,
    [
      '--storage',
      `s3://${s3.bucket}/served`,
      '--downloads',
      downloads,
      '--retention',
      retention,
      '--rate-limit',
      '0',
    ],
    s3.env,
  );
  return running.url;
}

async function stop(): Promise<void> {
  if (running) {
    running.child.kill('SIGTERM');
    await running.exited;
    running = undefined;
  }
}

/** Converts the CSV and returns the request's id and its JSON artifact's download path. */
async function convert(base: string): Promise<{ id: string; download: string }> {
  const id = await submit(base, 'csv-json', 'counts.csv', CSV);
  const done = await waitDone(base, id);
  expect(done.status).toBe('succeeded');
  return { id, download: done.artifacts[0].download };
}

beforeAll(async () => {
  s3 = await startTestS3();
  dataDir = tempDir();
  bucket = new S3BlobStore(new S3Client(s3ClientConfig(s3.env)), s3.bucket, 'served/');
});
afterAll(async () => {
  await stop();
  await s3?.stop();
  removeDir(dataDir);
});

describe('fileconv serve --storage s3://', () => {
  let firstId = '';

  it('converts over HTTP with the files in S3, and streams the result through the signed file server', async () => {
    const base = await serve('signed');
    const { id, download } = await convert(base);
    firstId = id;

    // The result is in the bucket; the input went once the conversion ended; nothing on local disk.
    const keys = await bucket.list();
    expect(keys).toEqual([expect.stringMatching(new RegExp(`^artifacts/${id}/.+\\.json$`))]);
    expect(blobFiles(dataDir)).toEqual([]);

    const link = await get(download);
    expect(link.status).toBe(302);
    const file = new URL(link.headers.location as string);
    expect(file.pathname).toMatch(/^\/files\//);
    expect(file.searchParams.get('expires')).toMatch(/^\d+$/);

    const whole = await get(file.href);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toMatch(/^application\/json/);
    expect(whole.headers['content-disposition']).toMatch(/^attachment; filename="counts\.json"/);
    expect(JSON.parse(whole.text)).toEqual(JSON_ROWS);
    const part = await get(file.href, { range: 'bytes=1-5' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1-5/${whole.text.length}`);
    expect(part.text).toBe(whole.text.slice(1, 6));
  });

  it('with --downloads presigned, the signed link redirects to an S3 presigned URL valid 1 hour', async () => {
    const base = await serve('presigned');
    const { download } = await convert(base);
    const link = await get(download);
    expect(link.status).toBe(302);
    const files = await get(link.headers.location as string);
    expect(files.status).toBe(302);
    const presigned = new URL(files.headers.location as string);
    expect(presigned.origin).toBe(s3.endpoint);
    expect(presigned.pathname).toMatch(new RegExp(`^/${s3.bucket}/served/artifacts/`));
    expect(presigned.searchParams.get('X-Amz-Expires')).toBe('3600');

    const fromS3 = await get(presigned.href);
    expect(fromS3.status).toBe(200);
    expect(fromS3.headers['content-type']).toMatch(/^application\/json/);
    expect(fromS3.headers['content-disposition']).toMatch(/^attachment; filename="counts\.json"/);
    expect(JSON.parse(fromS3.text)).toEqual(JSON_ROWS);
  });

  it('retention deletes the objects of expired results from S3, and only those', async () => {
    const { id } = await convert(await serve('signed', '2s'));
    const artifactOf = (request: string) => (k: string) => k.startsWith(`artifacts/${request}/`);
    expect((await bucket.list()).filter(artifactOf(id))).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 2500));
    // A starting server sweeps what expired while it was down (the sweeper then runs every minute).
    const base = await serve('signed', '2s');
    const left = await bucket.list();
    expect(left.filter(artifactOf(id))).toEqual([]);
    expect(left.filter(artifactOf(firstId))).toHaveLength(1);
    const expired = await get(`${base}/api/public/requests/${id}/artifacts/json`);
    expect(expired.status).toBe(404);
    expect(expired.json.error.code).toBe('ARTIFACT_EXPIRED');
  });

  it('with the storage unreachable, uploads answer 503 CONVERT_API_UNAVAILABLE and the API keeps answering', async () => {
    await stop();
    const down = tempDir();
    try {
      running = await startChildServer(down, ['--storage', `s3://${s3.bucket}/served`, '--rate-limit', '0'], {
        ...s3.env,
        // A loopback port nothing listens on.
        FILECONV_S3_ENDPOINT: 'http://127.0.0.1:9',
      });
      const refused = await post(`${running.url}/api/public/convert`, [
        metaPart({ conversion: 'csv-json' }),
        filePart('counts.csv', CSV),
      ]);
      expect(refused.status).toBe(503);
      expect(refused.json.error.code).toBe('CONVERT_API_UNAVAILABLE');
      expect(refused.headers['retry-after']).toBe('60');
      expect((await get(`${running.url}/healthz`)).status).toBe(200);
      await stop();
    } finally {
      removeDir(down);
    }
  });
});

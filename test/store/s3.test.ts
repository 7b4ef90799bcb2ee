import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { S3Client } from '@aws-sdk/client-s3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/errors/index.js';
import { S3_PART_SIZE, S3BlobStore } from '../../src/store/s3.js';
import { parseS3Url, s3ClientConfig } from '../../src/store/s3-settings.js';
import { startTestS3, type TestS3 } from '../support/s3.js';

let s3: TestS3;
let scratch: string;
/** Every S3 operation the clients of this file sent, by command name. */
const sent: string[] = [];

function client(env: Record<string, string> = s3.env): S3Client {
  const c = new S3Client(s3ClientConfig(env));
  c.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize' },
  );
  return c;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function write(store: S3BlobStore, key: string, body: Buffer | string): Promise<void> {
  const w = await store.createWriter(key);
  await pipeline(Readable.from([Buffer.from(body)]), w.stream);
  await w.commit();
}

async function rejection(p: Promise<unknown>): Promise<FileconvError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FileconvError);
  return e as FileconvError;
}

beforeAll(async () => {
  s3 = await startTestS3();
  scratch = mkdtempSync(join(tmpdir(), 'fileconv-s3-scratch-'));
});
afterAll(async () => {
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('S3 settings', () => {
  it('reads s3://bucket/prefix', () => {
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseS3Url('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', prefix: 'a/b/' });
    for (const bad of ['http://x/y', 's3://', 's3://UPPER/x', 's3://ok-bucket/../x', 's3://ok-bucket/a b'])
      expect(() => parseS3Url(bad)).toThrow(/--storage|prefix/);
  });

  it('addresses a custom endpoint path-style, with the keys and region of the environment', () => {
    const config = s3ClientConfig({
      FILECONV_S3_ENDPOINT: 'http://127.0.0.1:9000',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_REGION: 'eu-west-3',
    });
    expect(config).toMatchObject({
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      region: 'eu-west-3',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(s3ClientConfig({})).not.toHaveProperty('endpoint');
    expect(() => s3ClientConfig({ FILECONV_S3_ENDPOINT: 'ftp://x' })).toThrow(/FILECONV_S3_ENDPOINT/);
  });
});

describe('S3BlobStore on s3rver', () => {
  it('keeps blobs under its prefix only, and lists past one page of 1,000 keys', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'paged/');
    const other = new S3BlobStore(client(), s3.bucket, 'other/');
    await write(other, 'inputs/elsewhere', 'x');
    const keys = Array.from({ length: 1005 }, (_, i) => `artifacts/r${Math.floor(i / 100)}/f${i}`);
    for (let i = 0; i < keys.length; i += 25)
      await Promise.all(keys.slice(i, i + 25).map((k) => write(store, k, k)));
    sent.length = 0;
    const listed = await store.list();
    expect(listed.sort()).toEqual([...keys].sort());
    expect(sent.filter((c) => c === 'ListObjectsV2Command').length).toBe(2);
    expect(await other.list()).toEqual(['inputs/elsewhere']);
    expect(readdirSync(join(s3.directory, s3.bucket))).toEqual(expect.arrayContaining(['paged', 'other']));
  });

  it('reads whole blobs and inclusive byte ranges, and stats them', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'ranges/');
    await write(store, 'inputs/abc', '0123456789');
    expect(await store.stat('inputs/abc')).toEqual({ size: 10 });
    expect((await readAll(await store.openRead('inputs/abc'))).toString()).toBe('0123456789');
    expect((await readAll(await store.openRead('inputs/abc', { start: 2, end: 5 }))).toString()).toBe('2345');
    expect((await readAll(await store.openRead('inputs/abc', { start: 9, end: 9 }))).toString()).toBe('9');
  });

  it('answers a missing blob the way the routes expect: stat undefined, reads FILE_NOT_FOUND, delete fine', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'missing/');
    expect(await store.stat('inputs/nothing')).toBeUndefined();
    expect((await rejection(store.openRead('inputs/nothing'))).code).toBe('FILE_NOT_FOUND');
    expect((await rejection(store.withLocalCopy('inputs/nothing', scratch, async () => 1))).code).toBe(
      'FILE_NOT_FOUND',
    );
    await store.delete('inputs/nothing');
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('refuses keys that would leave its prefix', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'keys/');
    await expect(store.stat('../other/inputs/x')).rejects.toThrow(/bad blob key/);
    await expect(store.createWriter('inputs/../../x')).rejects.toThrow(/bad blob key/);
  });

  it('reports unreachable storage as CONVERT_API_UNAVAILABLE', async () => {
    const down = new S3BlobStore(
      new S3Client({
        ...s3ClientConfig({ ...s3.env, FILECONV_S3_ENDPOINT: 'http://127.0.0.1:9' }),
        maxAttempts: 1,
      }),
      s3.bucket,
    );
    expect((await rejection(down.stat('inputs/x'))).code).toBe('CONVERT_API_UNAVAILABLE');
    expect((await rejection(down.list())).code).toBe('CONVERT_API_UNAVAILABLE');
  });

  it('lends a local copy in the scratch folder and removes it after', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'copies/');
    await write(store, 'inputs/doc', 'engine input');
    let seen = '';
    const result = await store.withLocalCopy('inputs/doc', scratch, async (path) => {
      expect(path.startsWith(scratch)).toBe(true);
      seen = path;
      return readFileSync(path, 'utf8');
    });
    expect(result).toBe('engine input');
    expect(existsSync(seen)).toBe(false);
    expect(readdirSync(scratch)).toEqual([]);
    await expect(
      store.withLocalCopy('inputs/doc', scratch, async () => {
        throw new Error('engine failed');
      }),
    ).rejects.toThrow('engine failed');
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('stores a local file, leaving the file to the caller', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'files/');
    const path = join(scratch, 'local.txt');
    await pipeline(
      Readable.from([Buffer.from('from disk')]),
      (await import('node:fs')).createWriteStream(path),
    );
    await store.putFile('artifacts/r1/txt', path);
    expect(existsSync(path)).toBe(true);
    rmSync(path);
    expect((await readAll(await store.openRead('artifacts/r1/txt'))).toString()).toBe('from disk');
  });

  it('aborting a writer leaves no object', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'aborts/');
    const w = await store.createWriter('inputs/half');
    w.stream.write(Buffer.alloc(1000, 1));
    await w.abort();
    expect(await store.stat('inputs/half')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it('signs a GET that downloads with the given name and type, valid for the given time', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'signed/');
    await write(store, 'artifacts/r2/pdf', '%PDF-1.7 fake');
    const url = await store.presignedUrl('artifacts/r2/pdf', {
      filename: 'report é.pdf',
      mime: 'application/pdf',
      expiresInSeconds: 3600,
    });
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('3600');
    const answer = await request(url);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/pdf');
    expect(answer.headers['content-disposition']).toBe(
      `attachment; filename="report _.pdf"; filename*=UTF-8''report%20%C3%A9.pdf`,
    );
    expect(await answer.body.text()).toBe('%PDF-1.7 fake');
    // A signature made an hour ago for one second has expired.
    const old = new URL(url);
    old.searchParams.set('X-Amz-Expires', '1');
    old.searchParams.set('X-Amz-Date', '20200101T000000Z');
    const expired = await request(old);
    expect(expired.statusCode).toBe(403);
    await expired.body.dump();
  });
});

describe('200 MiB through S3', () => {
  const SIZE = 200 * 1024 * 1024;
  // Parts are garbage as soon as they are sent, but V8 frees them when it next collects, which may
  // be 60 MB later: memory is measured after a collection, so it shows what is held, not what waits.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const residentAfterGc = () => {
    gc();
    return process.memoryUsage().rss;
  };

  /** `size` pseudo-random bytes made as they are read (nothing held), and their SHA-256. */
  function generated(size: number): { stream: Readable; digest: () => string } {
    const hash = createHash('sha256');
    const block = Buffer.alloc(1024 * 1024);
    let made = 0;
    const stream = new Readable({
      read() {
        if (made >= size) return this.push(null);
        const chunk = Buffer.from(block.fill(made % 251));
        chunk.writeUInt32LE(made, 0);
        made += chunk.length;
        hash.update(chunk);
        this.push(chunk);
      },
    });
    return { stream, digest: () => hash.digest('hex') };
  }

  it('streams in as a multipart upload and out again with resident memory growth under 64 MB', async () => {
    const store = new S3BlobStore(client(), s3.bucket, 'large/');
    // A first, smaller round trip (40 MiB) loads the SDK's upload and download code and lets the
    // heap and the allocator reach their working size, so the baseline has them and the growth is
    // what 200 MiB more cost: a driver that held the file would grow by about 200 MiB.
    const warmUp = await store.createWriter('inputs/warm-up');
    await pipeline(generated(8 * S3_PART_SIZE).stream, warmUp.stream);
    await warmUp.commit();
    for await (const _ of await store.openRead('inputs/warm-up'));
    await store.delete('inputs/warm-up');
    const baseline = residentAfterGc();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentAfterGc());
    }, 50);
    sent.length = 0;
    try {
      const source = generated(SIZE);
      const w = await store.createWriter('inputs/large');
      await pipeline(source.stream, w.stream);
      await w.commit();
      expect(sent).toContain('CreateMultipartUploadCommand');
      expect(sent.filter((c) => c === 'UploadPartCommand').length).toBe(Math.ceil(SIZE / S3_PART_SIZE));
      expect(sent).toContain('CompleteMultipartUploadCommand');
      expect(await store.stat('inputs/large')).toEqual({ size: SIZE });

      const hash = createHash('sha256');
      let read = 0;
      for await (const chunk of await store.openRead('inputs/large')) {
        hash.update(chunk as Buffer);
        read += (chunk as Buffer).length;
      }
      expect(read).toBe(SIZE);
      expect(hash.digest('hex')).toBe(source.digest());
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - baseline;
    console.log(`200 MiB in and out of S3: resident memory grew by ${(growth / 1024 / 1024).toFixed(1)} MiB`);
    expect(growth).toBeLessThan(64 * 1000 * 1000);
    await store.delete('inputs/large');
  });
});

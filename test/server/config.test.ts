import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LinkSigner } from '../../src/server/access/tokens.js';
import { resolveServeConfig } from '../../src/server/config.js';
import { get, removeDir, startTestServer, submit, type TestServer, tempDir, waitDone } from './helpers.js';

describe('serve configuration', () => {
  it('has the documented defaults', () => {
    const c = resolveServeConfig({}, {});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: resolve('fileconv-data'),
      publicUrl: undefined,
      concurrency: cpus().length,
      maxUpload: 209_715_200,
      retentionMs: 24 * 3600_000,
    });
  });

  it('reads every option from the environment, and flags win', () => {
    const env = {
      FILECONV_HOST: '0.0.0.0',
      FILECONV_PORT: '9000',
      FILECONV_DATA_DIR: '/srv/fileconv',
      FILECONV_PUBLIC_URL: 'https://files.example.com/',
      FILECONV_CONCURRENCY: '3',
      FILECONV_MAX_UPLOAD: '10MiB',
      FILECONV_RETENTION: '90m',
    };
    expect(resolveServeConfig({}, env)).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/srv/fileconv',
      publicUrl: 'https://files.example.com',
      concurrency: 3,
      maxUpload: 10 * 1024 * 1024,
      retentionMs: 90 * 60_000,
    });
    expect(resolveServeConfig({ port: '9001', maxUpload: '512k' }, env)).toMatchObject({
      port: 9001,
      maxUpload: 512 * 1024,
    });
  });

  it('takes the shared database, storage and worker role from flags or the environment', () => {
    expect(resolveServeConfig({}, {})).toMatchObject({
      database: undefined,
      storage: undefined,
      worker: true,
    });
    const env = {
      FILECONV_DATABASE_URL: 'postgres://fileconv:pw@db.internal:5432/fileconv',
      FILECONV_STORAGE: 's3://fileconv-files/prod',
      FILECONV_WORKER: 'false',
    };
    expect(resolveServeConfig({}, env)).toMatchObject({
      database: 'postgres://fileconv:pw@db.internal:5432/fileconv',
      storage: 's3://fileconv-files/prod',
      worker: false,
    });
    expect(resolveServeConfig({ worker: true, storage: 's3://other' }, env)).toMatchObject({
      worker: true,
      storage: 's3://other',
    });
    expect(() => resolveServeConfig({ database: 'sqlite:///x.db' }, {})).toThrow(/--database/);
    expect(() => resolveServeConfig({ storage: '/srv/files' }, {})).toThrow(/--storage/);
    expect(() => resolveServeConfig({ worker: 'maybe' }, {})).toThrow(/--worker/);
  });

  it('takes the heartbeat limit and job lease of the shared queue, 30 s and 15 min by default', () => {
    expect(resolveServeConfig({}, {})).toMatchObject({ heartbeatLimitMs: 30_000, jobLeaseMs: 900_000 });
    const env = { FILECONV_HEARTBEAT_LIMIT: '10s', FILECONV_JOB_LEASE: '2h' };
    expect(resolveServeConfig({}, env)).toMatchObject({ heartbeatLimitMs: 10_000, jobLeaseMs: 7_200_000 });
    expect(resolveServeConfig({ heartbeatLimit: '45s' }, env)).toMatchObject({ heartbeatLimitMs: 45_000 });
    // Beats come every sixth of the limit: under a second would hammer the database.
    expect(() => resolveServeConfig({ heartbeatLimit: '500ms' }, {})).toThrow(/--heartbeat-limit/);
    expect(() => resolveServeConfig({}, { FILECONV_HEARTBEAT_LIMIT: 'soon' })).toThrow(/--heartbeat-limit/);
  });

  it('starts no engine early by default; --warm or FILECONV_WARM names engines, or none', () => {
    expect(resolveServeConfig({}, {}).warm).toEqual([]);
    expect(resolveServeConfig({}, { FILECONV_WARM: 'chromium, LibreOffice' }).warm).toEqual([
      'chromium',
      'libreoffice',
    ]);
    expect(resolveServeConfig({ warm: 'none' }, { FILECONV_WARM: 'chromium' }).warm).toEqual([]);
    expect(() => resolveServeConfig({ warm: 'chromium;libreoffice' }, {})).toThrow(
      /--warm must be engine names separated by commas/,
    );
  });

  it('refuses invalid values with a message naming the option', () => {
    expect(() => resolveServeConfig({ port: '70000' }, {})).toThrow(/--port/);
    expect(() => resolveServeConfig({ concurrency: 'many' }, {})).toThrow(/--concurrency/);
    expect(() => resolveServeConfig({}, { FILECONV_MAX_UPLOAD: 'lots' })).toThrow(/--max-upload/);
    expect(() => resolveServeConfig({ retention: 'forever' }, {})).toThrow(/--retention/);
    expect(() => resolveServeConfig({ publicUrl: 'ftp://x' }, {})).toThrow(/--public-url/);
  });
});

describe('download mode', () => {
  it('streams by default, takes presigned from the flag or FILECONV_DOWNLOADS, refuses anything else', () => {
    expect(resolveServeConfig({}, {}).downloads).toBe('signed');
    const s3 = { FILECONV_STORAGE: 's3://fileconv-files' };
    expect(resolveServeConfig({}, { ...s3, FILECONV_DOWNLOADS: 'presigned' }).downloads).toBe('presigned');
    // Presigned URLs are S3's: on the data directory there are none to hand out.
    expect(() => resolveServeConfig({}, { FILECONV_DOWNLOADS: 'presigned' })).toThrow(/needs S3 storage/);
    expect(resolveServeConfig({ downloads: 'signed' }, { FILECONV_DOWNLOADS: 'presigned' }).downloads).toBe(
      'signed',
    );
    expect(() => resolveServeConfig({ downloads: 'direct' }, {})).toThrow(
      /--downloads must be signed or presigned/,
    );
  });
});

describe('data directory', () => {
  let server: TestServer;
  afterAll(async () => {
    await server.stop();
    removeDir(server.dataDir);
  });

  it('holds the database, with the signing key, readable only by its owner; links use --public-url', async () => {
    server = await startTestServer({ publicUrl: 'https://files.example.com' });
    expect(statSync(join(server.dataDir, 'fileconv.db')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(server.dataDir, 'signing.key'))).toBe(false);
    const id = await submit(server.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
    const done = await waitDone(server.url, id);
    expect(done.artifacts[0].download).toBe(
      `https://files.example.com/api/public/requests/${id}/artifacts/json`,
    );
    const local = `${server.url}/api/public/requests/${id}/artifacts/json`;
    const redirect = await get(local);
    expect(String(redirect.headers.location)).toMatch(/^https:\/\/files\.example\.com\/files\//);
    const link = new URL(String(redirect.headers.location));
    const head = await get(`${server.url}${link.pathname}${link.search}`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(done.artifacts[0].size));
    expect(head.text).toBe('');
  });
});

/** The signed file link of a finished request's first artifact, as the artifact route hands it out. */
async function fileLink(s: TestServer): Promise<URL> {
  const id = await submit(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
  await waitDone(s.url, id);
  const redirect = await get(`${s.url}/api/public/requests/${id}/artifacts/json`);
  return new URL(String(redirect.headers.location));
}

describe('signing secret', () => {
  it('adopts the signing.key of an older data directory and keeps it in the database after', async () => {
    const dataDir = tempDir();
    const legacy = Buffer.alloc(32, 7);
    writeFileSync(join(dataDir, 'signing.key'), `${legacy.toString('hex')}\n`, { mode: 0o600 });
    const signer = new LinkSigner(legacy);
    const signedWith = (link: URL) => {
      const opaque = link.pathname.split('/').pop()!;
      const expires = Number(link.searchParams.get('expires'));
      return signer.verify(opaque, expires, link.searchParams.get('signature')!);
    };
    try {
      let s = await startTestServer({ dataDir });
      expect(signedWith(await fileLink(s))).toBe(true);
      await s.stop();
      // The file is no longer needed: the database holds the adopted key.
      rmSync(join(dataDir, 'signing.key'));
      s = await startTestServer({ dataDir });
      const link = await fileLink(s);
      expect(signedWith(link)).toBe(true);
      expect((await get(`${s.url}${link.pathname}${link.search}`, {}, 'HEAD')).status).toBe(200);
      await s.stop();
    } finally {
      removeDir(dataDir);
    }
  });
});

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { FileconvError } from '../errors/index.js';
import { checkBlobKey } from './blob-key.js';
import { contentDisposition } from './content-disposition.js';
import { parseS3Url, s3ClientConfig } from './s3-settings.js';
import type { BlobStat, BlobStore, BlobWriter } from './types.js';

/**
 * Part size of multipart uploads: S3's smallest, since an upload holds a part being filled and each
 * part in flight in memory. 10,000 parts (S3's limit) still reach 48 GiB, far past any upload limit.
 */
export const S3_PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/** What went wrong talking to S3, as the codes the routes know: a missing key, or storage that is down. */
function storageError(key: string, e: unknown): FileconvError {
  if (e instanceof FileconvError) return e;
  const missing =
    e instanceof S3ServiceException && (e.name === 'NoSuchKey' || e.$metadata.httpStatusCode === 404);
  return missing
    ? new FileconvError('FILE_NOT_FOUND', `No stored file ${key}.`, { cause: e })
    : new FileconvError(
        'CONVERT_API_UNAVAILABLE',
        'The file storage is unreachable or refused the request; retry later.',
        {
          cause: e,
        },
      );
}

/**
 * BlobStore on an S3 bucket (AWS or any S3-compatible server), keys under a prefix. Blobs stream in
 * as multipart uploads and out as (ranged) GETs; nothing holds a whole file in memory, and a local
 * copy exists only while an engine reads it.
 */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix = '',
  ) {}

  /** The store of `s3://bucket/prefix`, with the client settings from the environment (s3-settings.ts). */
  static fromUrl(url: string, env: NodeJS.ProcessEnv = process.env): S3BlobStore {
    const { bucket, prefix } = parseS3Url(url);
    return new S3BlobStore(new S3Client(s3ClientConfig(env)), bucket, prefix);
  }

  private objectKey(key: string): string {
    return this.prefix + checkBlobKey(key);
  }

  private upload(key: string, body: () => Readable): Upload {
    const Key = this.objectKey(key);
    return new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body: body() },
      partSize: S3_PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
    });
  }

  /**
   * The object appears when its upload completes, which is when the stream ends; `commit` waits for
   * that. Nothing points at the key before the caller has committed, and `abort` cancels the upload
   * or deletes what it stored.
   */
  async createWriter(key: string): Promise<BlobWriter> {
    const stream = new PassThrough();
    const upload = this.upload(key, () => stream);
    const done = upload.done();
    // A failed upload stops reading: fail the writer too, so a pipeline into it does not wait forever.
    done.catch((e) => stream.destroy(storageError(key, e)));
    return {
      stream,
      commit: async () => {
        try {
          await done;
        } catch (e) {
          throw storageError(key, e);
        }
      },
      abort: async () => {
        stream.destroy();
        await upload.abort().catch(() => {});
        await done.catch(() => {});
        await this.delete(key);
      },
    };
  }

  async putFile(key: string, path: string): Promise<void> {
    const upload = this.upload(key, () => createReadStream(path));
    try {
      await upload.done();
    } catch (e) {
      throw storageError(key, e);
    }
  }

  /** Downloads the blob into a folder of its own in `scratchDir` for fn, and removes it after. */
  async withLocalCopy<T>(key: string, scratchDir: string, fn: (path: string) => Promise<T>): Promise<T> {
    await mkdir(scratchDir, { recursive: true });
    const dir = await mkdtemp(join(scratchDir, 'blob-'));
    try {
      const path = join(dir, key.split('/').pop() ?? 'blob');
      await pipeline(await this.openRead(key), createWriteStream(path, { mode: 0o600 }));
      return await fn(path);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    const Key = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return { size: head.ContentLength ?? 0 };
    } catch (e) {
      const error = storageError(key, e);
      if (error.code === 'FILE_NOT_FOUND') return undefined;
      throw error;
    }
  }

  async openRead(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const Key = this.objectKey(key);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      // In Node the body is the HTTP response itself, streamed as it arrives.
      return answer.Body as Readable;
    } catch (e) {
      throw storageError(key, e);
    }
  }

  presignedUrl(
    key: string,
    opts: { filename: string; mime: string; expiresInSeconds: number },
  ): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.objectKey(key),
        ResponseContentDisposition: contentDisposition(opts.filename),
        ResponseContentType: opts.mime,
      }),
      { expiresIn: opts.expiresInSeconds },
    );
  }

  /** Deleting a key that is not there succeeds, as S3 does. */
  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (e) {
      throw storageError(key, e);
    }
  }

  /** Every key under the prefix, page by page (S3 answers 1,000 at a time). */
  async list(): Promise<string[]> {
    const keys: string[] = [];
    try {
      for await (const page of paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.bucket, Prefix: this.prefix },
      )) {
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(this.prefix.length));
      }
    } catch (e) {
      throw storageError(this.prefix, e);
    }
    return keys;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

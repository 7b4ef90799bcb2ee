/**
 * The file storage's own cost per conversion, without engines: stream the upload in, lend the
 * engine a local copy, store the result, stream it out, delete both. S3 (s3rver on loopback, a
 * Node server on local files, so this is the driver's and the protocol's overhead, not AWS's
 * speed) against the local-disk store, in the same run, for small and for large files.
 * Ratio = S3 / disk conversions per second (higher is better).
 *
 *   tsx bench/blobs.ts
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DiskBlobStore } from '../src/store/disk.js';
import { S3BlobStore } from '../src/store/s3.js';
import type { BlobStore } from '../src/store/types.js';
import { startTestS3 } from '../test/support/s3.js';
import { removeDir, tempDir } from './lib/serve.js';

const SIZES = [
  { label: 'small', bytes: 64 * 1024, rounds: 100 },
  { label: 'large', bytes: 50 * 1024 * 1024, rounds: 4 },
];

/** One conversion's storage work on `blobs`; returns conversions per second over `rounds`. */
async function rate(blobs: BlobStore, bytes: number, rounds: number, scratch: string): Promise<number> {
  const block = randomBytes(Math.min(bytes, 1024 * 1024));
  const output = join(scratch, 'output');
  writeFileSync(output, randomBytes(Math.min(bytes, 1024 * 1024)));
  const start = performance.now();
  for (let i = 0; i < rounds; i++) {
    const input = `inputs/bench${i}`;
    const artifact = `artifacts/bench${i}/out.bin`;
    const writer = await blobs.createWriter(input);
    let sent = 0;
    const body = Readable.from(
      (function* () {
        for (; sent < bytes; sent += block.length)
          yield block.subarray(0, Math.min(block.length, bytes - sent));
      })(),
    );
    await pipeline(body, writer.stream);
    await writer.commit();
    await blobs.withLocalCopy(input, scratch, async () => {});
    await blobs.putFile(artifact, output);
    for await (const _ of await blobs.openRead(artifact));
    await blobs.delete(input);
    await blobs.delete(artifact);
  }
  return rounds / ((performance.now() - start) / 1000);
}

async function main(): Promise<void> {
  const s3 = await startTestS3('fileconv-bench');
  const dir = tempDir('fileconv-bench-blobs-');
  try {
    const disk = new DiskBlobStore(join(dir, 'data'));
    await disk.init();
    const bucket = S3BlobStore.fromUrl(`s3://${s3.bucket}/bench`, s3.env);
    for (const { label, bytes, rounds } of SIZES) {
      const size = bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`;
      const onDisk = await rate(disk, bytes, rounds, dir);
      const onS3 = await rate(bucket, bytes, rounds, dir);
      console.log(`  ${size}: disk ${onDisk.toFixed(1)}/s, S3 ${onS3.toFixed(1)}/s`);
      console.log(`blobs-${label}: ${(onS3 / onDisk).toFixed(2)} (S3 / disk conversions per second)`);
    }
    await bucket.close();
  } finally {
    await s3.stop();
    removeDir(dir);
  }
}

await main();

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../../src/store/types.js';

export interface BlobContractOptions {
  /** The store hands out direct download URLs (presignedUrl), which the suite then fetches. */
  presigned?: boolean;
}

const CHUNK = 64 * 1024;

/** `size` pseudo-random bytes as a stream of 64 KiB chunks, and their SHA-256. */
function generated(size: number, seed: number): { stream: () => Readable; sha256: string; bytes: Buffer } {
  const block = randomBytes(CHUNK);
  block.writeUInt32BE(seed, 0);
  const bytes = Buffer.alloc(size);
  for (let at = 0; at < size; at += CHUNK) block.copy(bytes, at, 0, Math.min(CHUNK, size - at));
  const stream = () =>
    Readable.from(
      (function* () {
        for (let at = 0; at < size; at += CHUNK) yield bytes.subarray(at, Math.min(at + CHUNK, size));
      })(),
    );
  return { stream, sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** What every blob driver must do; `open` gives a store on an empty (or at least private) space. */
export function blobContract(
  name: string,
  open: () => Promise<BlobStore>,
  opts: BlobContractOptions = {},
): void {
  describe(`blob contract: ${name}`, () => {
    let blobs: BlobStore;
    let scratch: string;
    beforeAll(async () => {
      blobs = await open();
      scratch = mkdtempSync(join(tmpdir(), 'fileconv-blob-contract-'));
    });
    afterAll(async () => {
      await blobs.close?.();
      rmSync(scratch, { recursive: true, force: true });
    });
    const key = (prefix: string) => `${prefix}/${randomUUID().replaceAll('-', '')}`;

    it('streams a 12 MiB blob in and reads it back whole and by inclusive ranges', async () => {
      const k = key('inputs');
      const data = generated(12 * 1024 * 1024 + 5, 1);
      const writer = await blobs.createWriter(k);
      // Not visible before commit.
      expect(await blobs.stat(k)).toBeUndefined();
      await pipeline(data.stream(), writer.stream);
      await writer.commit();
      expect(await blobs.stat(k)).toEqual({ size: data.bytes.length });
      const whole = await readAll(await blobs.openRead(k));
      expect(createHash('sha256').update(whole).digest('hex')).toBe(data.sha256);
      const head = await readAll(await blobs.openRead(k, { start: 0, end: 9 }));
      expect(head.equals(data.bytes.subarray(0, 10))).toBe(true);
      const middle = await readAll(await blobs.openRead(k, { start: 5_000_000, end: 5_000_000 }));
      expect(middle.equals(data.bytes.subarray(5_000_000, 5_000_001))).toBe(true);
      const last = data.bytes.length - 1;
      const tail = await readAll(await blobs.openRead(k, { start: last - 99, end: last }));
      expect(tail.equals(data.bytes.subarray(last - 99))).toBe(true);
      await blobs.delete(k);
    });

    it('keeps nothing of an aborted writer', async () => {
      const k = key('inputs');
      const writer = await blobs.createWriter(k);
      writer.stream.write(Buffer.alloc(200_000, 1));
      await writer.abort();
      expect(await blobs.stat(k)).toBeUndefined();
      expect(await blobs.list()).not.toContain(k);
    });

    it('stores a local file under a key and leaves the file to its owner', async () => {
      const k = `artifacts/${randomUUID().replaceAll('-', '')}/json.json`;
      const file = join(scratch, 'out.json');
      writeFileSync(file, '{"a":1}\n');
      await blobs.putFile(k, file);
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
      expect(await blobs.stat(k)).toEqual({ size: 8 });
      expect((await readAll(await blobs.openRead(k))).toString()).toBe('{"a":1}\n');
      // Removing the caller's file afterwards does not touch the blob.
      rmSync(file);
      expect((await readAll(await blobs.openRead(k))).toString()).toBe('{"a":1}\n');
      await blobs.delete(k);
    });

    it('lends a local copy while a function runs, and leaves the scratch folder as it was', async () => {
      const k = key('inputs');
      const data = generated(3 * CHUNK + 17, 2);
      const writer = await blobs.createWriter(k);
      await pipeline(data.stream(), writer.stream);
      await writer.commit();
      const lent = join(scratch, 'lend');
      mkdirSync(lent);
      const result = await blobs.withLocalCopy(k, lent, async (path) => {
        expect(readFileSync(path).equals(data.bytes)).toBe(true);
        return 'done';
      });
      expect(result).toBe('done');
      expect(readdirSync(lent)).toEqual([]);
      // A failing function's error comes through, and nothing is left either.
      await expect(
        blobs.withLocalCopy(k, lent, async () => {
          throw new Error('engine failed');
        }),
      ).rejects.toThrow('engine failed');
      expect(readdirSync(lent)).toEqual([]);
      // The blob itself is still there.
      expect(await blobs.stat(k)).toEqual({ size: data.bytes.length });
      await blobs.delete(k);
    });

    it('gives the blob itself as a local path only where blobs are local files', async () => {
      const k = key('inputs');
      const data = generated(CHUNK + 5, 3);
      const writer = await blobs.createWriter(k);
      await pipeline(data.stream(), writer.stream);
      await writer.commit();
      const local = blobs.localPath?.(k);
      if (local !== undefined) expect(readFileSync(local).equals(data.bytes)).toBe(true);
      await blobs.delete(k);
      if (local !== undefined) expect(existsSync(local)).toBe(false);
    });

    it('lists stored keys, deletes them (twice is fine), and refuses to read what is gone', async () => {
      const id = randomUUID().replaceAll('-', '');
      const keys = [`inputs/${id}`, `artifacts/${id}/pdf.pdf`, `artifacts/${id}/zip.zip`];
      for (const k of keys) {
        const writer = await blobs.createWriter(k);
        writer.stream.end(k);
        await new Promise((resolve) => writer.stream.once('finish', resolve));
        await writer.commit();
      }
      const listed = await blobs.list();
      expect(keys.every((k) => listed.includes(k))).toBe(true);
      await blobs.delete(keys[1]!);
      await blobs.delete(keys[1]!);
      expect(await blobs.stat(keys[1]!)).toBeUndefined();
      expect(await blobs.list()).not.toContain(keys[1]);
      expect(await blobs.stat(keys[2]!)).toEqual({ size: keys[2]!.length });
      await expect(blobs.openRead(keys[1]!)).rejects.toThrow();
      for (const k of keys) await blobs.delete(k);
      const after = await blobs.list();
      expect(keys.some((k) => after.includes(k))).toBe(false);
    });

    it.skipIf(!opts.presigned)('hands out a direct download URL with the file name and type', async () => {
      const k = key('artifacts');
      const writer = await blobs.createWriter(k);
      writer.stream.end('%PDF-1.7 contract\n');
      await new Promise((resolve) => writer.stream.once('finish', resolve));
      await writer.commit();
      const url = await blobs.presignedUrl!(k, {
        filename: 'report.pdf',
        mime: 'application/pdf',
        expiresInSeconds: 3600,
      });
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toContain('report.pdf');
      expect(await res.text()).toBe('%PDF-1.7 contract\n');
      await blobs.delete(k);
    });
  });
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { DiskBlobStore } from '../../src/store/disk.js';
import { blobContract } from './contract/blobs.js';

const dir = mkdtempSync(join(tmpdir(), 'fileconv-disk-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

blobContract('local disk', async () => {
  const store = new DiskBlobStore(dir);
  await store.init();
  return store;
});

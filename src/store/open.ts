import { mkdir } from 'node:fs/promises';
import { FileconvError } from '../errors/index.js';
import { DiskBlobStore } from './disk.js';
import { openDataDirRecords } from './sqlite-records.js';
import type { BlobStore, Records } from './types.js';

/** Where a node keeps its records and files: URLs from the settings, or the data directory. */
export interface StoreSettings {
  dataDir: string;
  /** `postgres://...`; undefined: SQLite in the data directory. */
  database: string | undefined;
  /** `s3://bucket/prefix`; undefined: the data directory. */
  storage: string | undefined;
}

export interface Stores {
  records: Records;
  blobs: BlobStore;
  /** Whether the records live in this machine's data directory (the embedded queue and SQLite). */
  embedded: boolean;
  close(): Promise<void>;
}

async function openRecords(settings: StoreSettings): Promise<Records> {
  if (settings.database === undefined) return openDataDirRecords(settings.dataDir);
  throw new FileconvError(
    'INVALID_REQUEST',
    '--database: PostgreSQL records are not part of this build yet; leave it unset for SQLite in the data directory.',
  );
}

async function openBlobs(settings: StoreSettings): Promise<BlobStore> {
  if (settings.storage === undefined) {
    const disk = new DiskBlobStore(settings.dataDir);
    await disk.init();
    return disk;
  }
  // Loaded only when asked for: the AWS SDK is large and a disk setup never needs it.
  const { S3BlobStore } = await import('./s3.js');
  return S3BlobStore.fromUrl(settings.storage);
}

/** Opens the drivers the settings name; the data directory is made when missing (scratch lives there). */
export async function openStores(settings: StoreSettings): Promise<Stores> {
  await mkdir(settings.dataDir, { recursive: true });
  const records = await openRecords(settings);
  let blobs: BlobStore;
  try {
    blobs = await openBlobs(settings);
  } catch (e) {
    await records.close();
    throw e;
  }
  return {
    records,
    blobs,
    embedded: settings.database === undefined,
    async close() {
      await blobs.close?.();
      await records.close();
    },
  };
}

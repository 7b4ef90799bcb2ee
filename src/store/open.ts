import { privateFolder } from '../run/private-folder.js';
import { DiskBlobStore } from './disk.js';
import { openDataDirRecords } from './sqlite-records.js';
import type { BlobStore, JobQueue, Records } from './types.js';

/** Where a node keeps its records and files: URLs from the settings, or the data directory. */
export interface StoreSettings {
  dataDir: string;
  /** `postgres://...`; undefined: SQLite in the data directory. */
  database: string | undefined;
  /** `s3://bucket/prefix`; undefined: the data directory. */
  storage: string | undefined;
  /** With PostgreSQL: how long a worker holds a job before another may take it, in ms. */
  jobLeaseMs?: number;
}

export interface Stores {
  records: Records;
  blobs: BlobStore;
  /** The shared job queue (pg-boss on the database); undefined: the embedded queue in the records. */
  jobs: JobQueue | undefined;
  /** Whether the records live in this machine's data directory (the embedded queue and SQLite). */
  embedded: boolean;
  close(): Promise<void>;
}

async function openRecords(settings: StoreSettings): Promise<Records> {
  if (settings.database === undefined) return openDataDirRecords(settings.dataDir);
  // Loaded only when asked for, like the S3 and queue drivers: an embedded setup never needs them.
  const { openPostgresRecords } = await import('./postgres-records.js');
  return openPostgresRecords(settings.database);
}

async function openJobs(
  settings: StoreSettings,
  log: (message: string) => void,
): Promise<JobQueue | undefined> {
  if (settings.database === undefined) return undefined;
  const { PgBossQueue } = await import('./queue/pg-boss.js');
  const leaseSeconds = Math.max(1, Math.round((settings.jobLeaseMs ?? 15 * 60_000) / 1000));
  return PgBossQueue.open({
    url: settings.database,
    leaseSeconds,
    // Expired leases are looked for a few times per lease, so a dead worker's job waits little past it.
    superviseSeconds: Math.min(30, Math.max(1, Math.floor(leaseSeconds / 4))),
    onError: (e) => log(`job queue: ${e.message}`),
  });
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
export async function openStores(
  settings: StoreSettings,
  log: (message: string) => void = console.error,
): Promise<Stores> {
  await privateFolder(settings.dataDir);
  const opened: { close(): Promise<void> }[] = [];
  const closeAll = async () => {
    for (const o of opened.reverse()) await o.close().catch(() => {});
  };
  try {
    const records = await openRecords(settings);
    opened.push(records);
    const blobs = await openBlobs(settings);
    opened.push({ close: async () => blobs.close?.() });
    const jobs = await openJobs(settings, log);
    if (jobs) opened.push({ close: () => jobs.stop({ graceMs: 0 }) });
    return { records, blobs, jobs, embedded: settings.database === undefined, close: closeAll };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

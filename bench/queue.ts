/**
 * The queue's own cost per conversion, without engines: file a request, hand it to a worker,
 * claim it, store its artifact and finish it. PostgreSQL records with the pg-boss queue (each
 * worker a pg-boss queue of its own, as on separate nodes) against the embedded SQLite queue
 * (claimNextQueued in one process), with one and with two workers, in the same run.
 * Ratio = PostgreSQL / SQLite conversions per second (higher is better).
 *
 *   tsx bench/queue.ts
 */
import { join } from 'node:path';
import { openPostgresRecords } from '../src/store/postgres-records.js';
import { PgBossQueue } from '../src/store/queue/pg-boss.js';
import { openSqliteRecords } from '../src/store/sqlite-records.js';
import type { ArtifactRecord, NewRequest, Records } from '../src/store/types.js';
import { startPostgres } from '../test/support/postgres.js';
import { removeDir, tempDir } from './lib/serve.js';

const JOBS = 300;

function request(id: string, now: number): NewRequest {
  return {
    id,
    kind: 'convert',
    status: 'running',
    conversion: 'csv-json',
    from: 'csv',
    to: 'json',
    filename: 'table.csv',
    inputKey: `inputs/${id}`,
    identity: 'ip:203.0.113.7',
    queue: 'queued',
    progress: { percent: 0, stage: 'queued', step: 0, steps: 1 },
    createdAt: now,
  };
}

function artifact(requestId: string): ArtifactRecord {
  return {
    requestId,
    name: 'table.json',
    format: 'json',
    mime: 'application/json',
    size: 100,
    sha256: '0'.repeat(64),
    blobKey: `artifacts/${requestId}/table.json`,
    filename: 'table.json',
    expiresAt: Date.now() + 3_600_000,
    expired: false,
  };
}

async function fileAll(records: Records, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: JOBS }, (_, i) => `${prefix}-${i}`);
  for (const id of ids) await records.requests.createRequest(request(id, Date.now()), []);
  return ids;
}

/** The embedded queue: `workers` loops claiming the oldest queued request until none is left. */
async function sqliteRate(workers: number): Promise<number> {
  const dir = tempDir('fileconv-bench-queue-');
  const records = openSqliteRecords(join(dir, 'fileconv.db'));
  try {
    await fileAll(records, `s${workers}`);
    const started = performance.now();
    const loop = async () => {
      for (;;) {
        const r = await records.requests.claimNextQueued(Date.now());
        if (!r) return;
        await records.requests.finishSucceeded(r.id, [artifact(r.id)], Date.now());
      }
    };
    await Promise.all(Array.from({ length: workers }, loop));
    return JOBS / ((performance.now() - started) / 1000);
  } finally {
    await records.close();
    removeDir(dir);
  }
}

/** pg-boss: every request enqueued, then `workers` queues (one job at a time each) drain it. */
async function postgresRate(url: string, workers: number): Promise<number> {
  const records = await openPostgresRecords(url);
  const queueName = `bench-${workers}`;
  const api = await PgBossQueue.open({ url, queue: queueName });
  const nodes = await Promise.all(
    Array.from({ length: workers }, async () => ({
      queue: await PgBossQueue.open({ url, queue: queueName }),
      records: await openPostgresRecords(url),
    })),
  );
  try {
    const ids = await fileAll(records, `p${workers}`);
    for (const id of ids) await api.enqueue(id);
    let done = 0;
    let allDone: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const started = performance.now();
    for (const node of nodes) {
      await node.queue.work(
        async (id) => {
          const claimed = await node.records.requests.claim(id, Date.now());
          if (!claimed) return;
          if (await node.records.requests.finishSucceeded(id, [artifact(id)], Date.now())) done++;
          if (done === JOBS) allDone();
        },
        { concurrency: 1 },
      );
    }
    await finished;
    return JOBS / ((performance.now() - started) / 1000);
  } finally {
    for (const node of nodes) {
      await node.queue.stop({ graceMs: 1_000 });
      await node.records.close();
    }
    await api.stop({ graceMs: 1_000 });
    await records.close();
  }
}

async function main(): Promise<void> {
  const server = await startPostgres();
  try {
    for (const workers of [1, 2]) {
      const sqlite = await sqliteRate(workers);
      const postgres = await postgresRate(server.url, workers);
      console.log(
        `${JOBS} conversions without engines, ${workers} worker(s): SQLite embedded queue ${sqlite.toFixed(0)}/s, ` +
          `PostgreSQL + pg-boss ${postgres.toFixed(0)}/s`,
      );
      console.log(
        `queue-${workers}-worker: ${(postgres / sqlite).toFixed(3)} (PostgreSQL / SQLite conversions per second; higher is better)`,
      );
    }
  } finally {
    await server.stop();
  }
}

await main();

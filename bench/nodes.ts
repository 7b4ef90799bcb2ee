/**
 * Conversions per second of the whole service, API node and workers as separate processes:
 * SQLite + local disk (the embedded queue, workers sharing the data directory) against
 * PostgreSQL + S3 (pg-boss jobs, s3rver on loopback, each worker its own data directory), with
 * one and with two workers of one conversion at a time each, in the same run. The conversions are
 * small CSV to JSON ones, so the figure is the service's cost around a fast engine.
 * Ratio = PostgreSQL + S3 / SQLite + disk conversions per second (higher is better).
 *
 *   tsx bench/nodes.ts
 */
import {
  type ChildServer,
  type ChildWorker,
  startChildServer,
  startChildWorker,
  submit,
  waitDone,
} from '../test/server/helpers.js';
import { startPostgres } from '../test/support/postgres.js';
import { startTestS3 } from '../test/support/s3.js';
import { removeDir, tempDir } from './lib/serve.js';

const CONVERSIONS = 40;
const CSV = `id,name,score\n${Array.from({ length: 200 }, (_, i) => `${i},row ${i},${i * 7}`).join('\n')}\n`;

async function stopAll(processes: (ChildServer | ChildWorker)[]): Promise<void> {
  for (const p of processes) p.child.kill('SIGTERM');
  await Promise.all(processes.map((p) => p.exited));
}

/** Starts one API node and `workers` workers, runs the conversions, returns conversions per second. */
async function rate(workers: number, env: NodeJS.ProcessEnv, sharedDataDir: boolean): Promise<number> {
  const dirs: string[] = [];
  const dataDir = () => {
    if (sharedDataDir && dirs.length > 0) return dirs[0]!;
    const d = tempDir('fileconv-bench-node-');
    dirs.push(d);
    return d;
  };
  const processes: (ChildServer | ChildWorker)[] = [];
  try {
    const api = await startChildServer(
      dataDir(),
      ['--no-worker', '--rate-limit', '0', '--quota-anon', 'conversions=100000', '--max-queued', '1000'],
      env,
    );
    processes.push(api);
    for (let i = 0; i < workers; i++)
      processes.push(await startChildWorker(dataDir(), ['--concurrency', '1'], env));
    // One conversion first, so engines are probed and warm in every worker before the clock starts.
    for (let i = 0; i < workers; i++)
      await waitDone(api.url, await submit(api.url, 'csv-json', 'w.csv', CSV));
    const start = performance.now();
    const ids = await Promise.all(
      Array.from({ length: CONVERSIONS }, (_, i) => submit(api.url, 'csv-json', `t${i}.csv`, CSV)),
    );
    for (const id of ids) {
      const done = await waitDone(api.url, id, 300_000);
      if (done.status !== 'succeeded') throw new Error(`conversion ${id} ended ${done.status}`);
    }
    return CONVERSIONS / ((performance.now() - start) / 1000);
  } finally {
    await stopAll(processes);
    for (const d of dirs) removeDir(d);
  }
}

async function main(): Promise<void> {
  const [pg, s3] = await Promise.all([startPostgres(), startTestS3('fileconv-bench')]);
  try {
    const distributed = {
      ...s3.env,
      FILECONV_DATABASE_URL: pg.url,
      FILECONV_STORAGE: `s3://${s3.bucket}/bench`,
    };
    for (const workers of [1, 2]) {
      const embedded = await rate(workers, {}, true);
      const spread = await rate(workers, distributed, false);
      console.log(
        `  ${workers} worker(s): SQLite + disk ${embedded.toFixed(2)}/s, PostgreSQL + S3 ${spread.toFixed(2)}/s`,
      );
      console.log(`nodes-${workers}: ${(spread / embedded).toFixed(2)} (PostgreSQL + S3 / SQLite + disk)`);
    }
  } finally {
    await Promise.all([pg.stop(), s3.stop()]);
  }
}

await main();

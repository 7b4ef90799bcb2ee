/**
 * Whole conversions per second through the HTTP API on both setups, in the same run: CONVERSIONS
 * small csv->json conversions submitted at once, timed until the last one has ended.
 *   - embedded (the baseline): one `fileconv serve`, SQLite and disk, running its own conversions;
 *   - distributed: one `serve --no-worker` on PostgreSQL (a throwaway cluster) and S3 (s3rver),
 *     with one and then two `fileconv worker` processes.
 * Every process runs CONCURRENCY conversions at once. Ratio = distributed / embedded.
 *
 *   tsx bench/multi-node.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { startPostgres } from '../test/support/postgres.js';
import { startTestS3 } from '../test/support/s3.js';
import { makeCsv } from './lib/inputs.js';
import {
  type Child,
  ROOT,
  removeDir,
  seconds,
  startServe,
  submitConversion,
  tempDir,
  waitFinished,
} from './lib/serve.js';

const CONVERSIONS = 60;
const CONCURRENCY = 2;

/** Starts `fileconv worker` and resolves once it says it runs. */
async function startWorker(dataDir: string, flags: string[]): Promise<Child> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'fileconv'), 'worker', '--data-dir', dataDir, ...flags],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('fileconv worker running')) resolve();
    });
    child.stderr!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`fileconv worker exited ${code}: ${output}`)));
  });
  return {
    url: '',
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Submits every conversion at once and waits for all; returns conversions per second. */
async function rate(api: string, csv: string): Promise<number> {
  const elapsed = await seconds(async () => {
    const sent = await Promise.all(
      Array.from({ length: CONVERSIONS }, () => submitConversion(api, 'csv-json', csv, 't.csv')),
    );
    const ends = await Promise.all(
      sent.map((s) => {
        if (!s.id) throw new Error(`convert answered ${s.status}`);
        return waitFinished(api, s.id);
      }),
    );
    const failed = ends.filter((e) => e.status !== 'succeeded');
    if (failed.length > 0)
      throw new Error(`${failed.length} conversions did not succeed: ${JSON.stringify(failed[0])}`);
  });
  return CONVERSIONS / elapsed;
}

async function main(): Promise<void> {
  const dir = tempDir('fileconv-bench-nodes-');
  const csv = join(dir, 't.csv');
  makeCsv(csv, 50);
  const started: Child[] = [];
  const postgres = await startPostgres();
  const s3 = await startTestS3();
  // The spawned nodes read the S3 endpoint and credentials from the environment.
  Object.assign(process.env, s3.env);
  try {
    const embedded = await startServe(join(dir, 'embedded'), ['--concurrency', String(CONCURRENCY)]);
    started.push(embedded);
    await rate(embedded.url, csv); // warm-up: engines discovered, caches filled
    const baseline = await rate(embedded.url, csv);
    await embedded.stop();

    const shared = ['--database', postgres.url, '--storage', `s3://${s3.bucket}/bench`];
    const api = await startServe(join(dir, 'api'), [...shared, '--no-worker']);
    started.push(api);
    const figures: string[] = [];
    for (const workers of [1, 2]) {
      const worker = await startWorker(join(dir, `worker-${workers}`), [
        ...shared,
        '--concurrency',
        String(CONCURRENCY),
      ]);
      started.push(worker);
      await rate(api.url, csv); // warm-up: the new worker's engines found, its pools filled
      const distributed = await rate(api.url, csv);
      console.log(
        `${CONVERSIONS} csv->json conversions over HTTP, ${CONCURRENCY} at once per process: SQLite + disk, one serve ` +
          `${baseline.toFixed(1)}/s; PostgreSQL + S3, ${workers} worker(s) ${distributed.toFixed(1)}/s`,
      );
      figures.push(
        `multi-node-${workers}-worker: ${(distributed / baseline).toFixed(3)} (PostgreSQL + S3 / SQLite + disk conversions per second; higher is better)`,
      );
    }
    for (const f of figures) console.log(f);
  } finally {
    for (const c of started.reverse()) await c.stop();
    await s3.stop();
    await postgres.stop();
    removeDir(dir);
  }
}

await main();

/**
 * End-to-end conversions per second through the HTTP API: PostgreSQL records, pg-boss jobs and S3
 * files (an API node started with --no-worker, and one or two `fileconv worker` processes of one
 * slot each) against the embedded default (SQLite and disk, one `serve` with one or two slots),
 * in the same run. Each round submits CONVERSIONS small csv->json conversions at once and waits
 * for all of them; the engine is in-process, so the storage and queue path dominates.
 * Ratio = PostgreSQL + S3 / SQLite + disk (higher is better).
 *
 *   tsx bench/multinode.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSetup } from '../test/support/setups.js';
import {
  type Child,
  removeDir,
  seconds,
  startServe,
  startWorker,
  submitConversion,
  tempDir,
  waitFinished,
} from './lib/serve.js';

const CONVERSIONS = 60;

async function round(api: string, input: string): Promise<number> {
  const elapsed = await seconds(async () => {
    const ids = await Promise.all(
      Array.from({ length: CONVERSIONS }, async () => {
        const r = await submitConversion(api, 'csv-json', input, 'table.csv');
        if (!r.id) throw new Error(`submit answered ${r.status}`);
        return r.id;
      }),
    );
    const ends = await Promise.all(ids.map((id) => waitFinished(api, id)));
    const failed = ends.filter((e) => e.status !== 'succeeded').length;
    if (failed > 0) throw new Error(`${failed} conversions did not succeed`);
  });
  return CONVERSIONS / elapsed;
}

const work = tempDir('fileconv-bench-multinode-');
const nodeDirs: string[] = [];
const nodeDir = () => {
  const d = tempDir('fileconv-bench-node-');
  nodeDirs.push(d);
  return d;
};
const input = join(work, 'table.csv');
writeFileSync(
  input,
  `id,name,score\n${Array.from({ length: 200 }, (_, i) => `${i},row ${i},${i * 7}`).join('\n')}\n`,
);
const distributed = await startSetup('postgres-s3');
const shared = distributed.processEnv(await distributed.stores());
const queueRoom = ['--max-queued', '100000'];
const results: Record<string, number> = {};
try {
  for (const workers of [1, 2]) {
    const embedded = await startServe(nodeDir(), [...queueRoom, '--concurrency', String(workers)]);
    try {
      await round(embedded.url, input); // warm-up: engines probed, caches filled
      results[`sqlite+disk ${workers}`] = await round(embedded.url, input);
    } finally {
      await embedded.stop();
    }

    const api = await startServe(nodeDir(), [...queueRoom, '--no-worker'], shared);
    const nodes: Child[] = [api];
    try {
      for (let i = 0; i < workers; i++)
        nodes.push(await startWorker(nodeDir(), ['--concurrency', '1'], shared));
      await round(api.url, input);
      results[`postgres+s3 ${workers}`] = await round(api.url, input);
    } finally {
      for (const n of nodes) await n.stop();
    }
  }
} finally {
  await distributed.stop();
  for (const d of [work, ...nodeDirs]) removeDir(d);
}

for (const workers of [1, 2]) {
  const base = results[`sqlite+disk ${workers}`]!;
  const multi = results[`postgres+s3 ${workers}`]!;
  console.log(
    `multinode-${workers}-worker${workers > 1 ? 's' : ''}: ${(multi / base).toFixed(2)} (postgres+s3 ${multi.toFixed(1)} conversions/s / sqlite+disk ${base.toFixed(1)} conversions/s)`,
  );
}

/**
 * 100 small csv->json conversions sent at once to `fileconv serve` (default concurrency and
 * queue limit), by two kinds of client: one that uploads and then long-polls (two requests per
 * conversion, `burst`), and one that sends each file in one request with `?wait=` and gets the
 * finished request as the answer (`burst-wait`). Conversions per second versus the data engine's
 * run() called directly on the same file 100 times with the server's parallelism, in the same run:
 * one untimed round of each, then two alternating timed rounds.
 * Every answer to a submission must be 202 or 200 (accepted) or 503 (queue full); anything else fails.
 * Ratio = ours / baseline conversions per second (higher is better).
 *
 *   tsx bench/burst.ts
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { converter, runDirect } from './lib/direct.js';
import { makeCsv } from './lib/inputs.js';
import {
  convertAndWait,
  procCpuSeconds,
  removeDir,
  seconds,
  startServe,
  submitConversion,
  tempDir,
  waitFinished,
} from './lib/serve.js';

const BURST = 100;
const ROUNDS = 2;

/** Runs `count` jobs with at most `parallel` at once. */
async function withParallelism(
  count: number,
  parallel: number,
  job: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Alternating timed rounds of `client` and `direct`, after one untimed round of each. */
async function measure(
  name: string,
  client: (statuses: Map<number, number>) => Promise<number>,
  direct: () => Promise<void>,
  serverPid: number,
): Promise<void> {
  const statuses = new Map<number, number>();
  let succeeded = 0;
  const burst = async () => {
    succeeded += await client(statuses);
  };
  const refuseUnexpected = () => {
    const unexpected = [...statuses.keys()].filter((s) => s !== 200 && s !== 202 && s !== 503);
    if (unexpected.length > 0)
      throw new Error(`answers other than 200, 202 and 503: ${unexpected.join(', ')}`);
  };
  // One burst of each first, left out of the figure (a server in service is warm: JIT, worker
  // threads), then alternating rounds, so a change in the machine's load falls on both sides.
  const oursCold = await seconds(burst);
  const directCold = await seconds(direct);
  console.log(
    `first round (cold, left out of the figure): fileconv ${(BURST / oursCold).toFixed(1)} conversions/s, ` +
      `direct ${(BURST / directCold).toFixed(1)} conversions/s, ratio ${(directCold / oursCold).toFixed(3)}`,
  );
  refuseUnexpected();
  statuses.clear();
  succeeded = 0;
  let oursTime = 0;
  let directTime = 0;
  // CPU time per conversion tells the two apart on a busy machine, where wall time also
  // measures whoever else is using the cores: the server's (all its threads), the client's
  // (this process: uploads and polls), and this process's for the direct runs.
  let serverCpu = 0;
  let clientCpu = 0;
  let directCpu = 0;
  const cpuOf = async (fn: () => Promise<void>) => {
    const server0 = procCpuSeconds(serverPid);
    const self0 = process.cpuUsage();
    const time = await seconds(fn);
    const self = process.cpuUsage(self0);
    return { time, server: procCpuSeconds(serverPid) - server0, self: (self.user + self.system) / 1e6 };
  };
  for (let round = 1; round <= ROUNDS; round++) {
    const ro = await cpuOf(burst);
    const rd = await cpuOf(direct);
    oursTime += ro.time;
    directTime += rd.time;
    serverCpu += ro.server;
    clientCpu += ro.self;
    directCpu += rd.self;
    console.log(
      `round ${round}: fileconv ${(BURST / ro.time).toFixed(1)} conversions/s, direct ${(BURST / rd.time).toFixed(1)} conversions/s`,
    );
  }
  const counts = [...statuses.entries()].map(([status, n]) => `${status}: ${n}`).join(', ');
  console.log(`${BURST} csv->json sent at once, ${ROUNDS} times: answers ${counts}; ${succeeded} succeeded`);
  refuseUnexpected();
  const oursRate = succeeded / oursTime;
  const directRate = (BURST * ROUNDS) / directTime;
  console.log(
    `fileconv ${oursRate.toFixed(1)} conversions/s (${oursTime.toFixed(2)} s), direct ${directRate.toFixed(1)} conversions/s (${directTime.toFixed(2)} s)`,
  );
  const perConversion = (cpu: number) => `${((cpu / (BURST * ROUNDS)) * 1000).toFixed(1)} ms`;
  console.log(
    `CPU per conversion: server ${perConversion(serverCpu)} (its client ${perConversion(clientCpu)} more), ` +
      `direct ${perConversion(directCpu)}`,
  );
  console.log(
    `${name}: ${(oursRate / directRate).toFixed(3)} (ours / baseline conversions/s; higher is better)`,
  );
}

async function main(): Promise<void> {
  const dir = tempDir('fileconv-bench-burst-');
  // The server's default concurrency is the CPU count; the baseline uses the same.
  const parallel = availableParallelism();
  const server = await startServe(join(dir, 'data'));
  try {
    const csv = join(dir, 'small.csv');
    makeCsv(csv, 200);
    const engine = await converter('data');
    await runDirect(engine, 'csv', 'json', csv, dir);

    const bytes = readFileSync(csv);
    const direct = () => withParallelism(BURST, parallel, () => runDirect(engine, 'csv', 'json', csv, dir));
    const clients: Record<string, (statuses: Map<number, number>) => Promise<number>> = {
      burst: async (statuses) => {
        const sent = await Promise.all(
          Array.from({ length: BURST }, (_, i) =>
            submitConversion(server.url, 'csv-json', csv, `small-${i}.csv`),
          ),
        );
        for (const s of sent) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
        const done = await Promise.all(sent.filter((s) => s.id).map((s) => waitFinished(server.url, s.id!)));
        return done.filter((d) => d.status === 'succeeded').length;
      },
      'burst-wait': async (statuses) => {
        const sent = await Promise.all(
          Array.from({ length: BURST }, (_, i) =>
            convertAndWait(server.url, 'csv-json', bytes, `small-${i}.csv`),
          ),
        );
        for (const s of sent) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
        return sent.filter((s) => s.request?.status === 'succeeded').length;
      },
    };
    for (const [name, client] of Object.entries(clients)) {
      console.log(`\n== ${name}`);
      await measure(name, client, direct, server.pid);
    }
  } finally {
    await server.stop();
    removeDir(dir);
  }
}

await main();

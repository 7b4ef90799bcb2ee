/**
 * GET /api/public/requests/{id} (a finished csv->json conversion) requests per second against
 * `fileconv serve`, versus a bare node:http server answering the same JSON bytes, in the same
 * run: autocannon, 50 connections, three alternating rounds of 4 s each (so a change in the
 * machine's load falls on both sides). Ratio = ours / baseline over all rounds (higher is better).
 *
 *   tsx bench/poll.ts
 */
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { request } from 'undici';
import { makeCsv } from './lib/inputs.js';
import {
  procCpuSeconds,
  removeDir,
  startBare,
  startServe,
  submitConversion,
  tempDir,
  waitFinished,
} from './lib/serve.js';

const CONNECTIONS = 50;
const DURATION_S = 4;
const ROUNDS = 3;

// Answers every request with the JSON given on the command line, as the fastest possible poll.
const BARE_SERVER = `
import { createServer } from 'node:http';
const body = Buffer.from(process.argv[process.argv.length - 1]);
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

/** Loads `url` and returns autocannon's result with the CPU time the server `pid` spent meanwhile. */
async function hammer(url: string, pid: number): Promise<Result & { cpu: number }> {
  const before = procCpuSeconds(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S });
  if (result.errors || result.non2xx)
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { ...result, cpu: procCpuSeconds(pid) - before };
}

async function main(): Promise<void> {
  const dir = tempDir('fileconv-bench-poll-');
  const server = await startServe(join(dir, 'data'));
  try {
    const csv = join(dir, 't.csv');
    makeCsv(csv, 50);
    const sent = await submitConversion(server.url, 'csv-json', csv, 't.csv');
    if (!sent.id) throw new Error(`convert answered ${sent.status}`);
    await waitFinished(server.url, sent.id);
    const url = `${server.url}/api/public/requests/${sent.id}`;
    const json = await (await request(url)).body.text();
    const bare = await startBare(BARE_SERVER, [json]);
    try {
      // A short warm-up of each so neither pays for its first requests.
      await autocannon({ url, connections: 10, duration: 1 });
      await autocannon({ url: bare.url, connections: 10, duration: 1 });
      let oursTotal = 0;
      let baseTotal = 0;
      let oursCpu = 0;
      let baseCpu = 0;
      let oursCount = 0;
      let baseCount = 0;
      for (let round = 1; round <= ROUNDS; round++) {
        const ours = await hammer(url, server.pid);
        const base = await hammer(bare.url, bare.pid);
        oursTotal += ours.requests.average;
        baseTotal += base.requests.average;
        oursCpu += ours.cpu;
        baseCpu += base.cpu;
        oursCount += ours.requests.total;
        baseCount += base.requests.total;
        console.log(
          `round ${round}, ${CONNECTIONS} connections, ${DURATION_S} s, ${json.length}-byte answer: fileconv ${ours.requests.average.toFixed(0)} req/s ` +
            `(p99 ${ours.latency.p99} ms), bare node:http ${base.requests.average.toFixed(0)} req/s (p99 ${base.latency.p99} ms)`,
        );
      }
      // CPU time per answer tells the two apart on a busy machine, where requests per second also
      // measure whoever else is using the cores (the load generator shares them too).
      console.log(
        `CPU per answer: fileconv ${((oursCpu / oursCount) * 1e6).toFixed(0)} µs, bare ${((baseCpu / baseCount) * 1e6).toFixed(0)} µs`,
      );
      console.log(
        `poll: ${(oursTotal / baseTotal).toFixed(3)} (ours / baseline req/s; higher is better; ` +
          `${(oursTotal / ROUNDS).toFixed(0)} vs ${(baseTotal / ROUNDS).toFixed(0)} req/s)`,
      );
    } finally {
      await bare.stop();
    }
  } finally {
    await server.stop();
    removeDir(dir);
  }
}

await main();

/**
 * A 200 MiB upload (made on the fly, never held in memory) to `fileconv serve` as
 * POST /api/public/detect, versus a bare node:http handler that streams the same body to disk, in
 * the same run, in alternating rounds. Prints the throughput ratio (ours / baseline; higher is
 * better) and how much the server's resident memory grew at its peak during any upload.
 *
 *   tsx bench/upload.ts
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import {
  type Child,
  MULTIPART_TYPE,
  multipartBody,
  procCpuSeconds,
  procMemory,
  removeDir,
  seconds,
  startBare,
  startServe,
  tempDir,
} from './lib/serve.js';

const MIB = 1024 * 1024;
const SIZE_MIB = 200;
const ROUNDS = 3;

// Writes the raw body to a file and answers a small JSON; nothing else.
const BARE_SERVER = `
import { createServer } from 'node:http';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
const dir = process.argv[process.argv.length - 1];
let n = 0;
const server = createServer(async (req, res) => {
  const file = join(dir, 'upload-' + n++);
  await pipeline(req, createWriteStream(file));
  rmSync(file, { force: true });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
});
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

/** The body: a multipart file part of SIZE_MIB MiB, made from one random MiB repeated. */
function body(): Readable {
  const chunk = randomBytes(MIB);
  // A PNG signature up front so detection has something real to find.
  const head = Buffer.from(chunk);
  head.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0);
  return Readable.from(
    multipartBody([
      {
        name: 'file',
        filename: 'big.bin',
        contentType: 'application/octet-stream',
        body: async function* () {
          yield head;
          for (let i = 1; i < SIZE_MIB; i++) yield chunk;
        },
      },
    ]),
  );
}

async function upload(url: string): Promise<number> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': MULTIPART_TYPE },
    body: body(),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`upload answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return res.statusCode;
}

/** Peak resident memory of `child` above its level before `fn`, sampled and from the kernel's mark. */
async function peakGrowth(
  child: Child,
  fn: () => Promise<unknown>,
): Promise<{ time: number; growth: number; cpu: number }> {
  // Resets the kernel's peak-RSS mark (VmHWM) to the current RSS.
  writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
  const before = procMemory(child.pid, 'VmRSS');
  const cpuBefore = procCpuSeconds(child.pid);
  let sampled = before;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, procMemory(child.pid, 'VmRSS'));
  }, 20);
  try {
    const time = await seconds(fn);
    const peak = Math.max(sampled, procMemory(child.pid, 'VmHWM'));
    return { time, growth: peak - before, cpu: procCpuSeconds(child.pid) - cpuBefore };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<void> {
  const dir = tempDir('fileconv-bench-upload-');
  const server = await startServe(join(dir, 'data'), ['--max-upload', `${SIZE_MIB + 16}MiB`]);
  const bare = await startBare(BARE_SERVER, [dir]);
  try {
    const ours = `${server.url}/api/public/detect`;
    // The first upload of each (from idle, once the server is ready) gives the memory growth,
    // including any code it loads on the way; then alternating rounds, with everything loaded,
    // give the throughput, so a change in the machine's load falls on both sides.
    const oursCold = await peakGrowth(server, () => upload(ours));
    const bareCold = await peakGrowth(bare, () => upload(bare.url));
    let oursTime = 0;
    let bareTime = 0;
    let oursCpu = 0;
    let bareCpu = 0;
    let oursGrowth = oursCold.growth;
    let bareGrowth = bareCold.growth;
    for (let round = 1; round <= ROUNDS; round++) {
      const o = await peakGrowth(server, () => upload(ours));
      const b = await peakGrowth(bare, () => upload(bare.url));
      oursTime += o.time;
      bareTime += b.time;
      oursCpu += o.cpu;
      bareCpu += b.cpu;
      oursGrowth = Math.max(oursGrowth, o.growth);
      bareGrowth = Math.max(bareGrowth, b.growth);
      console.log(
        `round ${round}: fileconv ${(SIZE_MIB / o.time).toFixed(0)} MiB/s, bare node:http ${(SIZE_MIB / b.time).toFixed(0)} MiB/s`,
      );
    }
    const oursRate = (SIZE_MIB * ROUNDS) / oursTime;
    const bareRate = (SIZE_MIB * ROUNDS) / bareTime;
    console.log(
      `${SIZE_MIB} MiB upload: fileconv ${oursRate.toFixed(0)} MiB/s, bare node:http ${bareRate.toFixed(0)} MiB/s`,
    );
    console.log(
      `peak RSS growth (first upload; any upload): fileconv ${(oursCold.growth / MIB).toFixed(1)}; ${(oursGrowth / MIB).toFixed(1)} MB, ` +
        `bare ${(bareCold.growth / MIB).toFixed(1)}; ${(bareGrowth / MIB).toFixed(1)} MB`,
    );
    // CPU time tells the two apart on a busy machine, where wall time also measures whoever else
    // is using the cores.
    console.log(
      `CPU per upload: fileconv ${((oursCpu / ROUNDS) * 1000).toFixed(0)} ms, bare ${((bareCpu / ROUNDS) * 1000).toFixed(0)} ms`,
    );
    console.log(`upload: ${(oursRate / bareRate).toFixed(3)} (ours / baseline throughput; higher is better)`);
    console.log(`upload-rss-growth-mb: ${(oursGrowth / MIB).toFixed(1)}`);
  } finally {
    await server.stop();
    await bare.stop();
    removeDir(dir);
  }
}

await main();

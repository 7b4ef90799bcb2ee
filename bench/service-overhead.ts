/**
 * What the HTTP service adds on top of the engine: png->webp (a ~5 MB photo-like PNG) and
 * csv->json, each through the whole client cycle against `fileconv serve` (upload, long-poll with
 * ?wait, 302, download) versus the same converter's run() called directly on the same file, one
 * after another, in the same run. Ratio = ours / baseline wall time (lower is better; 1 = free).
 *
 *   tsx bench/service-overhead.ts
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { converter, runDirect } from './lib/direct.js';
import { makeCsv, makePhotoPng } from './lib/inputs.js';
import { convertOverHttp, removeDir, seconds, startServe, tempDir } from './lib/serve.js';

const ROUNDS = { png: 5, csv: 10 };

interface Case {
  label: string;
  conversion: string;
  engine: string;
  from: string;
  to: string;
  input: string;
  filename: string;
  rounds: number;
}

async function main(): Promise<void> {
  const dir = tempDir('fileconv-bench-overhead-');
  const server = await startServe(join(dir, 'data'), ['--max-queued', '1000']);
  try {
    const png = join(dir, 'photo.png');
    await makePhotoPng(png);
    const csv = join(dir, 'table.csv');
    makeCsv(csv, 20_000);
    const cases: Case[] = [
      {
        label: 'png',
        conversion: 'png-webp',
        engine: 'sharp',
        from: 'png',
        to: 'webp',
        input: png,
        filename: 'photo.png',
        rounds: ROUNDS.png,
      },
      {
        label: 'csv',
        conversion: 'csv-json',
        engine: 'data',
        from: 'csv',
        to: 'json',
        input: csv,
        filename: 'table.csv',
        rounds: ROUNDS.csv,
      },
    ];
    const lines: string[] = [];
    for (const c of cases) {
      const engine = await converter(c.engine);
      // One of each first, untimed: loads modules, probes, warms the server's catalog.
      await runDirect(engine, c.from, c.to, c.input, dir);
      await convertOverHttp(server.url, c.conversion, c.input, c.filename, join(dir, `warm.${c.to}`));
      let direct = 0;
      let http = 0;
      // Interleaved, so a busy moment on the shared machine hits both sides alike.
      for (let i = 0; i < c.rounds; i++) {
        direct += await seconds(() => runDirect(engine, c.from, c.to, c.input, dir));
        http += await seconds(() =>
          convertOverHttp(server.url, c.conversion, c.input, c.filename, join(dir, `out-${i}.${c.to}`)),
        );
      }
      const mb = (statSync(c.input).size / 1024 / 1024).toFixed(1);
      console.log(
        `${c.conversion} (${mb} MB input, ${c.rounds} rounds): direct ${((direct / c.rounds) * 1000).toFixed(0)} ms, ` +
          `over HTTP ${((http / c.rounds) * 1000).toFixed(0)} ms per conversion`,
      );
      lines.push(
        `service-overhead-${c.label}: ${(http / direct).toFixed(3)} (ours / baseline; lower is better)`,
      );
    }
    for (const line of lines) console.log(line);
  } finally {
    await server.stop();
    removeDir(dir);
  }
}

await main();

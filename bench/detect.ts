/**
 * Detection against libmagic, in the same run:
 *
 *   detect-batch: `fileconv detect --json` (the built bin/fileconv, one whole process) over the
 *     real-world corpus (test/corpus, both sources: PDFs, office files, media, images, text; run
 *     `npm run corpus` once) against `file --mime-type -b` over the same files (target <= 1,
 *     time ratio, lower is better). Needs `npm run build` first.
 *   detect: fileconv's detect() in process over the detection fixtures copied to a few hundred
 *     files against `file` as one batch over them (throughput ratio, higher is better), and
 *     its peak memory.
 *
 * Each side gets a warm-up round, then alternating rounds; medians (and CPU means) count.
 *
 *   tsx bench/detect.ts [copies]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectFile } from '../src/detect/index.js';
import { assertBuilt, compareBatch, corpusFiles, type Side } from './lib/detect-batch.js';
import { copyFixtures } from './lib/detect-corpus.js';
import { median } from './lib/stats.js';

const COPIES = Number(process.argv[2] ?? 4);
const ROUNDS = 9;
const BATCH_ROUNDS = 5;
const PARALLEL = 8;

let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};

async function detectAll(files: string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      await detectFile(files[next++]!);
      sampleRss();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

function libmagicAll(files: string[]): void {
  const out = execFileSync('file', ['--mime-type', '-b', ...files], {
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  });
  if (out.trim().split('\n').length !== files.length) throw new Error('file(1) skipped files');
}

/** libmagic's peak resident set in KB, from GNU time, when it is installed. */
function libmagicPeakKb(files: string[]): number | undefined {
  const res = spawnSync('/usr/bin/time', ['-f', '%M', 'file', '--mime-type', '-b', ...files], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const kb = Number(res.stderr?.trim().split('\n').pop());
  return res.status === 0 && Number.isFinite(kb) ? kb : undefined;
}

async function timed(run: () => Promise<void> | void): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/**
 * Rounds alternate between the two sides so a busy machine slows both alike; the medians count.
 */
async function compare(files: string[]): Promise<{ oursMs: number; baseMs: number }> {
  await detectAll(files);
  libmagicAll(files);
  const ours: number[] = [];
  const base: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    ours.push(await timed(() => detectAll(files)));
    base.push(await timed(() => libmagicAll(files)));
  }
  return { oursMs: median(ours), baseMs: median(base) };
}

const dir = mkdtempSync(join(tmpdir(), 'fileconv-bench-detect-'));
try {
  const files = copyFixtures(dir, COPIES);
  const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
  const { oursMs, baseMs } = await compare(files);
  const oursRate = files.length / (oursMs / 1000);
  const baseRate = files.length / (baseMs / 1000);
  const baseKb = libmagicPeakKb(files);
  console.log(
    `files: ${files.length} (${(bytes / 1024 / 1024).toFixed(1)} MB, ${COPIES} copies of the fixtures)`,
  );
  console.log(
    `fileconv detect: ${oursMs.toFixed(1)} ms, ${oursRate.toFixed(0)} files/s, peak rss ${(peakRss / 1024 / 1024).toFixed(0)} MB`,
  );
  console.log(
    `libmagic file --mime-type -b (one batch): ${baseMs.toFixed(1)} ms, ${baseRate.toFixed(0)} files/s` +
      (baseKb ? `, peak rss ${(baseKb / 1024).toFixed(0)} MB` : ''),
  );
  console.log(`detect: ${(oursRate / baseRate).toFixed(2)}x (ours / baseline throughput; higher is better)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const corpus = await corpusFiles();
if (!corpus) {
  console.log('detect-batch: skipped (the real-world corpus is not fetched: run `npm run corpus`)');
} else {
  assertBuilt();
  const { ours, file } = compareBatch(corpus.files, BATCH_ROUNDS);
  const ms = (s: Side) =>
    `${s.wallMs.toFixed(0)} ms wall` + (s.cpuMs === undefined ? '' : `, ${s.cpuMs.toFixed(0)} ms CPU`);
  console.log(`corpus: ${corpus.summary}`);
  console.log(`fileconv detect --json: ${ms(ours)}; file --mime-type -b: ${ms(file)}`);
  if (ours.cpuMs !== undefined && file.cpuMs !== undefined)
    console.log(`detect-batch-cpu: ${(ours.cpuMs / file.cpuMs).toFixed(2)} (CPU time, ours / file)`);
  console.log(
    `detect-batch: ${(ours.wallMs / file.wallMs).toFixed(2)} (fileconv detect / file --mime-type over ${corpus.files.length} corpus files, whole process, wall time; target <= 1)`,
  );
}

/**
 * The mixed-load scenario of `npm run load -- --scenario mixed`: a client sends one small PNG to
 * WebP and one small CSV to JSON every second, first to an idle server, then while two long video
 * transcodes and 20 DOCX to PDF run on the same server. Each short conversion is timed from the
 * start of its upload to the long-poll's final answer; the figure is the loaded p95 over the idle
 * p95 of the same client in the same run (target: at most 2).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { makeDocx } from '../../test/office-pool/inputs.js';
import { makeCsv, makePhotoPng } from './inputs.js';
import { type Child, removeDir, startServe, submitConversion, tempDir, waitFinished } from './serve.js';

export interface MixedOptions {
  /** Length of each of the two source videos, in seconds (the shape: 120). */
  videoSeconds: number;
  /** How long the short client runs on the idle server. */
  idleSeconds: number;
  source: boolean;
}

interface Inputs {
  png: string;
  csv: string;
  video: string;
  docx: string[];
}

const SHORT = [
  { conversion: 'png-webp', input: (i: Inputs) => i.png, name: 'small.png' },
  { conversion: 'csv-json', input: (i: Inputs) => i.csv, name: 'table.csv' },
] as const;

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Timed {
  /** Upload to final answer, in ms. */
  total: number;
  /** From `queued` to `started` in its timeline: the wait for a slot, in ms. */
  queued: number;
}

/** One conversion timed; undefined when the queue was full (503); throws unless it succeeded. */
async function timedConversion(
  base: string,
  conversion: string,
  input: string,
  name: string,
): Promise<Timed | undefined> {
  const t0 = performance.now();
  const sent = await submitConversion(base, conversion, input, name);
  if (sent.status === 503) return undefined;
  if (!sent.id) throw new Error(`${conversion}: convert answered ${sent.status}`);
  const done = await waitFinished(base, sent.id);
  if (done.status !== 'succeeded')
    throw new Error(`${conversion} ${done.status}: ${JSON.stringify(done.error)}`);
  const total = performance.now() - t0;
  const res = await request(`${base}/api/public/requests/${sent.id}/timeline`);
  const { events } = (await res.body.json()) as { events: { at: string; kind: string }[] };
  const at = (kind: string) => Date.parse(events.find((e) => e.kind === kind)?.at ?? '');
  return { total, queued: at('started') - at('queued') };
}

/** The short client: both conversions sent every second, not waiting for earlier ones, while `more()`. */
async function shortClient(base: string, inputs: Inputs, more: () => boolean) {
  const times = new Map<string, Timed[]>(SHORT.map((s) => [s.conversion, []]));
  const refused = new Map<string, number>(SHORT.map((s) => [s.conversion, 0]));
  const pending: Promise<void>[] = [];
  while (more()) {
    for (const s of SHORT)
      pending.push(
        timedConversion(base, s.conversion, s.input(inputs), s.name).then((t) => {
          if (t) times.get(s.conversion)!.push(t);
          else refused.set(s.conversion, refused.get(s.conversion)! + 1);
        }),
      );
    await sleep(1000);
  }
  await Promise.all(pending);
  return { times, refused };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function makeInputs(dir: string, videoSeconds: number): Promise<Inputs> {
  const png = join(dir, 'small.png');
  await makePhotoPng(png, 160, 120);
  const csv = join(dir, 'table.csv');
  makeCsv(csv, 200);
  // 720p test pattern with motion, stored fast (ultrafast x264): the transcode is the work.
  const video = join(dir, 'long.mp4');
  execFileSync('ffmpeg', [
    '-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30:duration=${videoSeconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', video,
  ]); // biome-ignore format: the command reads as typed
  const docx = Array.from({ length: 20 }, (_, n) => makeDocx(dir, n));
  return { png, csv, video, docx };
}

/** Runs the scenario on one `fileconv serve` (SQLite + disk); false when a conversion failed. */
export async function mixedLoad(options: MixedOptions): Promise<boolean> {
  const dir = tempDir('fileconv-bench-mixed-');
  const dataDir = tempDir('fileconv-bench-mixed-data-');
  let serve: Child | undefined;
  try {
    const inputs = await makeInputs(dir, options.videoSeconds);
    serve = await startServe(dataDir, [], {}, { source: options.source });
    const base = serve.url;
    // One of each first, untimed: engines load on their first job.
    for (const s of SHORT) await timedConversion(base, s.conversion, s.input(inputs), s.name);
    await timedConversion(base, 'docx-pdf', inputs.docx[0]!, 'doc0.docx');

    const idleUntil = Date.now() + options.idleSeconds * 1000;
    const idle = await shortClient(base, inputs, () => Date.now() < idleUntil);

    const started = performance.now();
    const heavy = [
      ...[1, 2].map((n) => ({ conversion: 'mp4-webm', input: inputs.video, name: `long-${n}.mp4` })),
      ...inputs.docx.map((d, n) => ({ conversion: 'docx-pdf', input: d, name: `doc${n}.docx` })),
    ];
    const ends = new Map<string, number>();
    let background = heavy.length;
    const backgroundDone = Promise.all(
      heavy.map(async (h) => {
        try {
          if (!(await timedConversion(base, h.conversion, h.input, h.name)))
            throw new Error(`${h.conversion}: the queue was full`);
          ends.set(h.conversion, performance.now() - started);
        } finally {
          background--;
        }
      }),
    );
    const loaded = await shortClient(base, inputs, () => background > 0);
    await backgroundDone;

    console.log(
      `load, mixed (one serve, SQLite + disk; load average at the end ${loadAverage()}): two ${options.videoSeconds} s 720p videos to WebM and 20 DOCX to PDF, while a client sends PNG to WebP and CSV to JSON once a second`,
    );
    console.log(
      `  background: last DOCX done after ${((ends.get('docx-pdf') ?? 0) / 1000).toFixed(1)} s, both videos after ${((ends.get('mp4-webm') ?? 0) / 1000).toFixed(1)} s`,
    );
    let met = true;
    const summary: string[] = [];
    for (const s of SHORT) {
      const a = idle.times.get(s.conversion)!.map((t) => t.total);
      const b = loaded.times.get(s.conversion)!.map((t) => t.total);
      const waits = loaded.times.get(s.conversion)!.map((t) => t.queued);
      const refused = loaded.refused.get(s.conversion)! + idle.refused.get(s.conversion)!;
      const ratio = percentile(b, 95) / percentile(a, 95);
      if (ratio > 2) met = false;
      const ms = (v: number[], p: number) => `${percentile(v, p).toFixed(0)} ms`;
      console.log(
        `  ${s.conversion}: idle n=${a.length} p50 ${ms(a, 50)} p95 ${ms(a, 95)}; loaded n=${b.length} p50 ${ms(b, 50)} p95 ${ms(b, 95)} (of which waiting for a slot: p50 ${ms(waits, 50)} p95 ${ms(waits, 95)} max ${ms(waits, 100)}); refused with 503 (queue full): ${refused}; p95 loaded / idle ${ratio.toFixed(2)}`,
      );
      summary.push(`${s.conversion} p95 ${ratio.toFixed(2)}x idle`);
    }
    console.log(`load-mixed: ${summary.join(', ')} (target ≤ 2: ${met ? 'met' : 'not met'})`);
    return true;
  } finally {
    await serve?.stop();
    removeDir(dir);
    removeDir(dataDir);
  }
}

/**
 * Bounded load test of `fileconv serve` on loopback: N clients for M seconds, each looping
 * detect, convert (csv->json and a small png->webp), a plain poll, long-poll, a plain poll of the
 * finished request, download. Prints requests handled, p50/p99 latency per kind, answers that were
 * not a success by status and code, the fileconv processes' resident memory and CPU time, and the
 * machine's load average. Only the designed refusals (429, 503) are allowed; any other error, or
 * a conversion that fails, makes the exit code non-zero. One untimed round of every client comes
 * first. Stops by itself.
 *
 *   tsx bench/load.ts [--clients 8] [--seconds 30] [--setup sqlite-disk|postgres-s3|both]
 *                     [--workers 1] [--source]
 *   (or LOAD_CLIENTS / LOAD_SECONDS / LOAD_SETUP / LOAD_WORKERS)
 *   tsx bench/load.ts --scenario mixed [--video-seconds 120] [--idle-seconds 30] [--source]
 *
 * SQLite + disk (the default) is one `fileconv serve`. PostgreSQL + S3 starts a throwaway
 * PostgreSQL cluster and an S3-protocol server (s3rver), then an API node (`serve --no-worker`)
 * and --workers `fileconv worker` processes, the shape of a multi-node install; --workers 0 runs
 * one `serve` that also converts. The server is the built one (`npm run build` first); --source
 * runs it from the TypeScript source instead, to measure a checkout that has not been built.
 *
 * `--scenario mixed` (bench/lib/mixed-load.ts) measures fairness instead: short conversions sent
 * once a second on an idle server, then while two long video transcodes and 20 DOCX to PDF run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SETUP_TITLES, type SetupName, setupMissing, startSetup } from '../test/support/setups.js';
import { makeCsv, makePhotoPng } from './lib/inputs.js';
import { type Inputs, KINDS, LoadStats, runClient, warmUp } from './lib/load-clients.js';
import { mixedLoad } from './lib/mixed-load.js';
import {
  type Child,
  procCpuSeconds,
  procMemory,
  removeDir,
  startServe,
  startWorker,
  tempDir,
} from './lib/serve.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string' },
    seconds: { type: 'string' },
    setup: { type: 'string' },
    workers: { type: 'string' },
    source: { type: 'boolean' },
    scenario: { type: 'string' },
    'video-seconds': { type: 'string' },
    'idle-seconds': { type: 'string' },
  },
});

function count(name: string, raw: string | undefined, fallback: number, least: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < least)
    throw new Error(`--${name} must be a whole number from ${least} up, got "${raw}"`);
  return n;
}

function setups(raw: string | undefined): SetupName[] {
  const choice = raw || 'sqlite-disk';
  if (choice === 'both') return ['sqlite-disk', 'postgres-s3'];
  if (choice === 'sqlite-disk' || choice === 'postgres-s3') return [choice];
  throw new Error(`--setup must be sqlite-disk, postgres-s3 or both, got "${choice}"`);
}

const CLIENTS = count('clients', values.clients ?? process.env.LOAD_CLIENTS, 8, 1);
const SECONDS = count('seconds', values.seconds ?? process.env.LOAD_SECONDS, 30, 1);
const WORKERS = count('workers', values.workers ?? process.env.LOAD_WORKERS, 1, 0);
const SETUPS = setups(values.setup ?? process.env.LOAD_SETUP);
const SOURCE = values.source === true;
/** How long after the end the last conversions may take before the run is called stuck. */
const DRAIN_MS = 120_000;

interface Node {
  role: string;
  child: Child;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** The fileconv processes of a setup, started on fresh stores. */
async function startNodes(name: SetupName, env: Record<string, string>, dirs: string[]): Promise<Node[]> {
  const dir = () => {
    const d = tempDir('fileconv-bench-load-node-');
    dirs.push(d);
    return d;
  };
  const split = name === 'postgres-s3' && WORKERS > 0;
  const nodes: Node[] = [];
  try {
    const api = await startServe(dir(), split ? ['--no-worker'] : [], env, { source: SOURCE });
    nodes.push({ role: split ? 'api node' : 'serve', child: api });
    for (let i = 1; split && i <= WORKERS; i++)
      nodes.push({ role: `worker ${i}`, child: await startWorker(dir(), [], env, { source: SOURCE }) });
    return nodes;
  } catch (err) {
    for (const n of nodes) await n.child.stop();
    throw err;
  }
}

function shape(name: SetupName): string {
  if (name === 'sqlite-disk' || WORKERS === 0) return 'one serve';
  return `an API node and ${WORKERS} worker process${WORKERS > 1 ? 'es' : ''}`;
}

/** Runs the clients against one setup and prints its figures; false when the run failed. */
async function loadSetup(name: SetupName, inputs: Inputs): Promise<boolean> {
  const missing = setupMissing(name);
  if (missing) throw new Error(`${SETUP_TITLES[name]}: ${missing}`);
  const setup = await startSetup(name);
  const dirs: string[] = [];
  let nodes: Node[] = [];
  try {
    nodes = await startNodes(name, setup.processEnv(await setup.stores()), dirs);
    const api = nodes[0]!.child.url;
    await warmUp(api, inputs, CLIENTS);
    const stats = new LoadStats();
    const rssStart = nodes.map((n) => procMemory(n.child.pid, 'VmRSS'));
    const cpuStart = nodes.map((n) => procCpuSeconds(n.child.pid));
    const clientCpuStart = process.cpuUsage();
    const loadStart = loadAverage();
    const started = Date.now();
    const until = started + SECONDS * 1000;
    const run = Promise.all(Array.from({ length: CLIENTS }, () => runClient(stats, api, inputs, until)));
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      timer = setTimeout(() => resolve('stuck'), SECONDS * 1000 + DRAIN_MS);
    });
    const outcome = await Promise.race([run, stuck]);
    clearTimeout(timer);
    if (outcome === 'stuck') {
      run.catch(() => {}); // the clients fail once the servers stop; that is no news
      console.log(`load on ${SETUP_TITLES[name]}: clients still busy ${DRAIN_MS / 1000} s after the end`);
      return false;
    }
    const elapsed = (Date.now() - started) / 1000;
    const clientCpu = process.cpuUsage(clientCpuStart);
    const serverCpu = nodes.reduce((sum, n, i) => sum + procCpuSeconds(n.child.pid) - cpuStart[i]!, 0);

    const title = `${SETUP_TITLES[name]} (${shape(name)})`;
    console.log(
      `load on ${title}: ${CLIENTS} clients for ${SECONDS} s: ${stats.handled} requests handled in ${elapsed.toFixed(1)} s (${(stats.handled / elapsed).toFixed(1)}/s), ${stats.succeeded} conversions`,
    );
    for (const kind of KINDS) {
      const { n, p50, p99 } = stats.summary(kind);
      console.log(
        `  ${kind.padEnd(17)} n=${String(n).padStart(5)}  p50 ${p50.toFixed(1)} ms  p99 ${p99.toFixed(1)} ms`,
      );
    }
    const errors = [...stats.problems.entries()].map(([what, n]) => `${what}: ${n}`).join(', ');
    console.log(`  errors: ${errors || 'none'}`);
    const memory = nodes.map((n, i) => {
      const [end, peak] = [procMemory(n.child.pid, 'VmRSS'), procMemory(n.child.pid, 'VmHWM')];
      return `${n.role} ${mib(rssStart[i]!)} -> ${mib(end)} MiB (peak ${mib(peak)})`;
    });
    console.log(`  VmRSS at start -> end: ${memory.join('; ')}`);
    const perConversion = (s: number) => ((s * 1000) / Math.max(1, stats.succeeded)).toFixed(1);
    const clientSeconds = (clientCpu.user + clientCpu.system) / 1e6;
    console.log(
      `  CPU time: fileconv processes ${serverCpu.toFixed(1)} s (${perConversion(serverCpu)} ms per conversion), clients ${clientSeconds.toFixed(1)} s (${perConversion(clientSeconds)} ms per conversion)${name === 'postgres-s3' ? '; PostgreSQL and s3rver not counted' : ''}`,
    );
    console.log(`  load average (1, 5, 15 min): ${loadStart} at start, ${loadAverage()} at the end`);
    const running = stats.summary('poll (running)');
    const finished = stats.summary('poll (finished)');
    console.log(
      `load-${name}: ${(stats.handled / elapsed).toFixed(1)} requests/s, poll p99 ${running.p99.toFixed(1)} ms running / ${finished.p99.toFixed(1)} ms finished, long-poll p99 ${stats.summary('long-poll').p99.toFixed(0)} ms (${shape(name)})`,
    );
    const unexpected = stats.unexpected();
    if (unexpected.length > 0) {
      console.log(`load on ${SETUP_TITLES[name]}: unexpected errors: ${unexpected.join(', ')}`);
      return false;
    }
    return true;
  } finally {
    for (const n of nodes) await n.child.stop();
    await setup.stop();
    for (const d of dirs) removeDir(d);
  }
}

async function main(): Promise<number> {
  const scenario = values.scenario ?? process.env.LOAD_SCENARIO ?? 'clients';
  if (scenario === 'mixed') {
    const ok = await mixedLoad({
      videoSeconds: count('video-seconds', values['video-seconds'] ?? process.env.LOAD_VIDEO_SECONDS, 120, 1),
      idleSeconds: count('idle-seconds', values['idle-seconds'] ?? process.env.LOAD_IDLE_SECONDS, 30, 5),
      source: SOURCE,
    });
    return ok ? 0 : 1;
  }
  if (scenario !== 'clients') throw new Error(`--scenario must be clients or mixed, got "${scenario}"`);
  const dir = tempDir('fileconv-bench-load-');
  try {
    const inputs = { csv: join(dir, 'table.csv'), png: join(dir, 'small.png') };
    makeCsv(inputs.csv, 200);
    await makePhotoPng(inputs.png, 160, 120);
    let ok = true;
    for (const name of SETUPS) {
      if (!(await loadSetup(name, inputs))) ok = false;
      if (!ok) break;
    }
    return ok ? 0 : 1;
  } finally {
    removeDir(dir);
  }
}

process.exitCode = await main();

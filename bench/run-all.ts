/**
 * Runs every bench one after another (each in its own process, so none inherits another's warm
 * caches or memory), echoes its output, and ends with a summary of the figure lines
 * (`name: ratio (ours / baseline)`; the load test's are requests/s and poll p99 per setup).
 * Exits non-zero if any bench failed.
 *
 *   npm run bench            all of them
 *   npm run bench -- poll    only the named ones
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const BENCHES = [
  'startup',
  'detect',
  'office',
  'chromium',
  'first-conversion',
  'service-overhead',
  'upload',
  'poll',
  'burst',
  'queue',
  'blobs',
  'multinode',
  'operations',
  'growth',
  'load',
] as const;
/** Arguments a bench gets here beyond its defaults: the load test runs on both setups (about 1 min each). */
const ARGS: Partial<Record<(typeof BENCHES)[number], string[]>> = { load: ['--setup', 'both'] };
/** Past this a bench is stopped, so the whole run stays well under 15 minutes. */
const BENCH_TIMEOUT_MS = 5 * 60_000;

interface Outcome {
  name: string;
  ok: boolean;
  seconds: number;
  figures: string[];
}

function runBench(name: (typeof BENCHES)[number]): Promise<Outcome> {
  const start = performance.now();
  const script = join(import.meta.dirname, `${name}.ts`);
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...(ARGS[name] ?? [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    process.stdout.write(d);
  });
  const timer = setTimeout(() => {
    console.log(`${name}: stopped after ${BENCH_TIMEOUT_MS / 1000} s`);
    child.kill('SIGKILL');
  }, BENCH_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      const figures = output
        .split('\n')
        .filter((line) => line.startsWith(`${name}: `) || line.startsWith(`${name}-`));
      resolve({ name, ok: code === 0, seconds: (performance.now() - start) / 1000, figures });
    });
  });
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((n) => !(BENCHES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    console.error(`unknown bench ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
    process.exit(2);
  }
  const outcomes: Outcome[] = [];
  // Every asked name is known by now.
  for (const name of (asked.length > 0 ? asked : BENCHES) as readonly (typeof BENCHES)[number][]) {
    console.log(`\n== ${name}`);
    outcomes.push(await runBench(name));
  }
  console.log('\n== summary (ratio = ours / baseline; the load test prints its own figures)');
  for (const o of outcomes) {
    if (!o.ok) console.log(`${o.name}: FAILED (${o.seconds.toFixed(0)} s)`);
    for (const f of o.figures) console.log(f);
  }
  const total = outcomes.reduce((sum, o) => sum + o.seconds, 0);
  console.log(`total ${total.toFixed(0)} s`);
  if (outcomes.some((o) => !o.ok)) process.exitCode = 1;
}

await main();

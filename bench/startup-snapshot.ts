/**
 * What a V8 start-up snapshot of `fileconv detect` would save (node 20: `--build-snapshot`), over
 * the same files as bench/startup.ts: whole processes, alternating rounds, median wall time and
 * mean CPU time (user + system of the child, from /proc/self/stat, in 10 ms ticks: the mean over
 * the rounds is exact on average, a median of ticks would not be). `npm run build` first.
 *
 *   bare:          node -e 0
 *   file:          file --mime-type -b <files>
 *   bundle:        node dist/cli.js detect --json <files>          (what users run)
 *   snapshot-cold: node --snapshot-blob cold.blob detect --json <files>   (bundle loaded)
 *   snapshot-warm: the same, with every fixture detected once before the snapshot
 *   snapshot-idle: the warm snapshot deserialized, nothing run (its own start-up cost)
 *
 *   tsx bench/startup-snapshot.ts [copies]
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'tsup';
import { copyFixtures, fixtureFiles } from './lib/detect-corpus.js';
import { median } from './lib/stats.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const COPIES = Number(process.argv[2] ?? 6);
const ROUNDS = 15;

/** CPU seconds of this process's waited-for children so far (cutime + cstime). */
function childrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const cpu0 = childrenCpu();
  const start = performance.now();
  // detect exits 3 when a file is disguised: a finding, not a failure of the run.
  try {
    execFileSync(cmd, args, { stdio: 'ignore', maxBuffer: 64 * 1024 * 1024, env: env ?? process.env });
  } catch (e) {
    if ((e as { status?: number }).status !== 3) throw e;
  }
  return { wall: performance.now() - start, cpu: (childrenCpu() - cpu0) * 1000 };
}

type Side = [cmd: string, args: string[], env?: NodeJS.ProcessEnv];

function measure(sides: Record<string, Side>): Record<string, { wall: number; cpu: number }> {
  const walls: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  const cpus: Record<string, number> = Object.fromEntries(Object.keys(sides).map((k) => [k, 0]));
  for (const side of Object.values(sides)) run(...side);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, side] of Object.entries(sides)) {
      const t = run(...side);
      walls[name]!.push(t.wall);
      cpus[name]! += t.cpu;
    }
  }
  return Object.fromEntries(
    Object.keys(sides).map((k) => [k, { wall: median(walls[k]!), cpu: cpus[k]! / ROUNDS }]),
  );
}

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
const dir = mkdtempSync(join(tmpdir(), 'fileconv-bench-snapshot-'));
try {
  const files = copyFixtures(dir, COPIES);
  await build({
    config: false,
    entry: { 'detect-snapshot': join(ROOT, 'bench', 'lib', 'detect-snapshot-entry.ts') },
    outDir: dir,
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    splitting: false,
    silent: true,
  });
  const entry = join(dir, 'detect-snapshot.cjs');
  const node = process.execPath;
  const blob = (name: string, warmDir?: string) => {
    const path = join(dir, `${name}.blob`);
    const env = { ...process.env, FILECONV_SNAPSHOT_WARM: warmDir ?? '' };
    // The builder warns that some built-ins (commander's child_process) are "not yet fully verified".
    execFileSync(node, ['--snapshot-blob', path, '--build-snapshot', entry], { env, stdio: 'ignore' });
    return path;
  };
  const warmDir = mkdtempSync(join(dir, 'warm-'));
  for (const src of fixtureFiles()) copyFileSync(src, join(warmDir, basename(src)));
  const cold = blob('cold');
  const warm = blob('warm', warmDir);
  const mb = (path: string) => `${(statSync(path).size / 1e6).toFixed(1)} MB`;
  console.log(`snapshots: cold ${mb(cold)}, warm ${mb(warm)}; ${files.length} files`);

  const expected = execFileSync(node, [CLI, 'detect', '--json', ...files]).toString();
  const fromSnapshot = execFileSync(node, ['--snapshot-blob', warm, 'detect', '--json', ...files]).toString();
  if (fromSnapshot !== expected) throw new Error('the snapshot answers differently from the bundle');

  const t = measure({
    bare: [node, ['-e', '0']],
    file: ['file', ['--mime-type', '-b', ...files]],
    bundle: [node, [CLI, 'detect', '--json', ...files]],
    'snapshot-cold': [node, ['--snapshot-blob', cold, 'detect', '--json', ...files]],
    'snapshot-warm': [node, ['--snapshot-blob', warm, 'detect', '--json', ...files]],
    'snapshot-idle': [node, ['--snapshot-blob', warm], { ...process.env, FILECONV_SNAPSHOT_IDLE: '1' }],
  });
  for (const [name, { wall, cpu }] of Object.entries(t)) {
    console.log(
      `${name.padEnd(14)} wall ${wall.toFixed(1).padStart(6)} ms  cpu ${cpu.toFixed(1).padStart(6)} ms`,
    );
  }
  const ratio = (a: string) =>
    `${(t[a]!.wall / t.file!.wall).toFixed(2)} wall, ${(t[a]!.cpu / t.file!.cpu).toFixed(2)} cpu`;
  console.log(`bundle / file: ${ratio('bundle')}; warm snapshot / file: ${ratio('snapshot-warm')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

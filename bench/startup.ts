/**
 * CLI start-up as users meet it: whole processes of the built CLI (`npm run build` first) against
 * bare node (`node -e 0`) and libmagic's `file`, alternating rounds so a busy machine slows every
 * side alike; medians count. Lower ratio is better.
 *
 *   startup-version:    fileconv --version / node -e 0             (target <= 2.5)
 *   startup-detect-one: fileconv detect <one file> / node -e 0     (target <= 3)
 *   startup-detect-many: fileconv detect <N files> / file --mime-type <N files>   (target <= 1)
 *   startup-convert-small: fileconv convert <a small CSV> --to json / node -e 0     (target <= 12)
 *
 * The last is every engine's probe (answered from the probe cache after the first run, as a
 * user's second command is) and the planner, around an in-process conversion of a few bytes.
 *
 *   tsx bench/startup.ts [copies]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures } from './lib/detect-corpus.js';
import { median } from './lib/stats.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const COPIES = Number(process.argv[2] ?? 6);
const ROUNDS = 11;

function run(cmd: string, args: string[]): number {
  const start = performance.now();
  // detect exits 3 when a file is disguised: a finding, not a failure of the run.
  try {
    execFileSync(cmd, args, { stdio: 'ignore', maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    if ((e as { status?: number }).status !== 3) throw e;
  }
  return performance.now() - start;
}

function measure(sides: Record<string, [string, string[]]>): Record<string, number> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  for (const [cmd, args] of Object.values(sides)) run(cmd, args);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, [cmd, args]] of Object.entries(sides)) times[name]!.push(run(cmd, args));
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
const dir = mkdtempSync(join(tmpdir(), 'fileconv-bench-startup-'));
try {
  const files = copyFixtures(dir, COPIES);
  const node = process.execPath;
  const csv = join(dir, 'small.csv');
  writeFileSync(csv, 'name,qty\napple,3\npear,5\n');
  const t = measure({
    bare: [node, ['-e', '0']],
    version: [node, [CLI, '--version']],
    detectOne: [node, [CLI, 'detect', files[0]!, '--json']],
    detectMany: [node, [CLI, 'detect', ...files, '--json']],
    fileMany: ['file', ['--mime-type', '-b', ...files]],
    convertSmall: [node, [CLI, 'convert', csv, '--to', 'json', '-o', join(dir, 'out')]],
  });
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`node -e 0: ${ms(t.bare!)}; file over ${files.length} files: ${ms(t.fileMany!)}`);
  console.log(
    `fileconv --version: ${ms(t.version!)}; detect one: ${ms(t.detectOne!)}; detect ${files.length}: ${ms(t.detectMany!)}`,
  );
  console.log(`startup-version: ${(t.version! / t.bare!).toFixed(2)} (ours / node -e 0; target <= 2.5)`);
  console.log(`startup-detect-one: ${(t.detectOne! / t.bare!).toFixed(2)} (ours / node -e 0; target <= 3)`);
  console.log(
    `startup-detect-many: ${(t.detectMany! / t.fileMany!).toFixed(2)} (ours / file --mime-type over ${files.length} files; target <= 1)`,
  );
  console.log(
    `startup-convert-small: ${(t.convertSmall! / t.bare!).toFixed(2)} (convert of a 3-line CSV: ${ms(t.convertSmall!)} / node -e 0; target <= 12)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The whole-process half of bench/detect.ts: `fileconv detect --json` (the built bin/fileconv)
 * against libmagic's `file --mime-type` over the same real-world files (test/corpus, both
 * sources), each side one process over the whole batch, alternating rounds in the same run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { getFormat } from '../../src/formats/index.js';
import { cacheDir } from '../../test/corpus/fetch.js';
import { fetchSources } from '../../test/corpus/sources.js';
import { median } from './stats.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'fileconv');
const BUNDLE = join(ROOT, 'dist', 'detect-main.js');
const GNU_TIME = '/usr/bin/time';

export interface Side {
  wallMs: number;
  /** User + system CPU of the process (GNU time), undefined where it is not installed. */
  cpuMs?: number;
}

/** The mixed set: every corpus file of both sources (Debian packages' files, test-suite files). */
export async function corpusFiles(): Promise<{ files: string[]; summary: string } | undefined> {
  if (!existsSync(join(cacheDir(), 'files'))) return undefined;
  const sourced = await fetchSources();
  const families = new Map<string, number>();
  for (const f of sourced) {
    const family = getFormat(f.format)?.family ?? 'other';
    families.set(family, (families.get(family) ?? 0) + 1);
  }
  const sizes = sourced.map((f) => statSync(f.file).size).sort((a, b) => b - a);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  const bySource = (s: string) => sourced.filter((f) => f.source === s).length;
  const summary =
    `${sourced.length} files (debian ${bySource('debian')}, upstream ${bySource('upstream')}), ` +
    `${mb(sizes.reduce((a, b) => a + b, 0))} MB, largest ${mb(sizes[0] ?? 0)} MB, ` +
    `${sizes.filter((s) => s > 1024 * 1024).length} over 1 MB; by family: ` +
    [...families]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  return { files: sourced.map((f) => f.file), summary };
}

function timedRun(cmd: string, args: string[]): Side {
  const timed = existsSync(GNU_TIME);
  const start = performance.now();
  const res = timed
    ? spawnSync(GNU_TIME, ['-f', '%U %S', cmd, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      })
    : spawnSync(cmd, args, { stdio: 'ignore' });
  const wallMs = performance.now() - start;
  // detect exits 3 when a file is disguised: a finding, not a failure of the run.
  if (res.status !== 0 && res.status !== 3) throw new Error(`${cmd} exited ${res.status}: ${res.stderr}`);
  if (!timed) return { wallMs };
  const [user, system] = String(res.stderr).trim().split('\n').pop()!.split(' ').map(Number);
  return { wallMs, cpuMs: ((user ?? 0) + (system ?? 0)) * 1000 };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Medians of wall time and means of CPU time (the kernel counts a child's CPU in ticks; a mean
 * over rounds is exact on average, a median of ticks is not) over `rounds` alternating rounds
 * after one untimed round of each side.
 */
export function compareBatch(files: string[], rounds: number): { ours: Side; file: Side } {
  const ourSide = (): Side => timedRun(process.execPath, [BIN, 'detect', '--json', ...files]);
  const fileSide = (): Side => timedRun('file', ['--mime-type', '-b', ...files]);
  ourSide();
  fileSide();
  const ours: Side[] = [];
  const base: Side[] = [];
  for (let r = 0; r < rounds; r++) {
    ours.push(ourSide());
    base.push(fileSide());
  }
  const summarise = (sides: Side[]): Side => ({
    wallMs: median(sides.map((s) => s.wallMs)),
    cpuMs: sides[0]?.cpuMs === undefined ? undefined : mean(sides.map((s) => s.cpuMs!)),
  });
  return { ours: summarise(ours), file: summarise(base) };
}

/**
 * bin/fileconv runs the TypeScript sources through tsx when dist/ is older than them (a source
 * checkout): that would measure tsx, so the bench refuses to run on a stale build.
 */
export function assertBuilt(): void {
  const built = join(ROOT, 'dist', 'cli.js');
  if (!existsSync(BUNDLE) || !existsSync(built))
    throw new Error('dist/ is missing: run `npm run build` first');
  const newest = Math.max(
    ...['src', 'converters'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs),
    ),
  );
  if (newest > statSync(built).mtimeMs)
    throw new Error('dist/ is older than the sources: run `npm run build`');
}

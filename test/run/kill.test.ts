import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/errors/index.js';
import { runConversion } from '../../src/run/runner.js';
import type { RunEvent } from '../../src/run/types.js';
import { tempDir } from '../helpers/step.js';
import { hangEngine, upperEngine, withFixtureBin } from './engines.js';

/** True while the process exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** pids of live processes whose command line mentions `marker` (pgrep -f). */
function pgrep(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter(alive);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}

function setup() {
  const dir = tempDir();
  const input = join(dir, 'in.txt');
  writeFileSync(input, 'text\n');
  const tempRoot = join(dir, 'tmp');
  mkdirSync(tempRoot);
  return { dir, input, tempRoot, outDir: join(dir, 'out'), pidFile: join(dir, 'hang.pids') };
}

/** The pids the engine recorded (inside its own process-id namespace, when confined). */
function recordedPids(pidFile: string): number[] {
  return readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number);
}

let restorePath: (() => void) | undefined;
afterEach(() => restorePath?.());

describe('runner kills hanging engines', () => {
  it('kills the whole process group on timeout, falls back, and leaves no temp folder', async () => {
    restorePath = withFixtureBin();
    const s = setup();
    const events: RunEvent[] = [];
    const result = await runConversion(
      { input: s.input, from: 'txt', to: 'md', outDir: s.outDir, onEvent: (e) => events.push(e) },
      // the hanging engine is first in file order; the second one rescues the conversion
      { engines: [hangEngine('hanger', s.pidFile, 1000), upperEngine('upper')], tempRoot: s.tempRoot },
    );
    expect(readFileSync(result.files[0]!.path, 'utf8')).toBe('TEXT\n');
    expect(recordedPids(s.pidFile)).toHaveLength(2);
    // Both processes name their job folder, under tempRoot: none may be left.
    await waitFor(() => pgrep(s.tempRoot).length === 0);
    expect(pgrep(s.tempRoot)).toEqual([]);
    expect(readdirSync(s.tempRoot)).toEqual([]);
    const failed = events.find((e) => e.kind === 'engine-failed')!;
    expect(failed.message).toMatch(/hanger failed: .*took longer than 1 s/);
    expect(events.some((e) => e.kind === 'fallback')).toBe(true);
  });

  it('reports CONVERT_FAILED when the only engine times out, with nothing left behind', async () => {
    restorePath = withFixtureBin();
    const s = setup();
    const err = await runConversion(
      { input: s.input, from: 'txt', to: 'md', outDir: s.outDir },
      { engines: [hangEngine('hanger', s.pidFile, 800)], tempRoot: s.tempRoot },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileconvError);
    expect((err as FileconvError).code).toBe('CONVERT_FAILED');
    expect((err as FileconvError).message).toContain('took longer than');
    expect(recordedPids(s.pidFile)).toHaveLength(2);
    await waitFor(() => pgrep(s.tempRoot).length === 0);
    expect(pgrep(s.tempRoot)).toEqual([]);
    expect(readdirSync(s.tempRoot)).toEqual([]);
  });

  it('kills the process group on abort, does not fall back, and cleans up', async () => {
    restorePath = withFixtureBin();
    const s = setup();
    const controller = new AbortController();
    const events: RunEvent[] = [];
    const running = runConversion(
      {
        input: s.input,
        from: 'txt',
        to: 'md',
        outDir: s.outDir,
        signal: controller.signal,
        onEvent: (e) => events.push(e),
      },
      { engines: [hangEngine('hanger', s.pidFile, 60_000), upperEngine('upper')], tempRoot: s.tempRoot },
    ).catch((e: unknown) => e);
    await waitFor(
      () => existsSync(s.pidFile) && readFileSync(s.pidFile, 'utf8').trim().split(/\s+/).length === 2,
    );
    // The engine, its helper and the wrappers that confine it (their command lines name the job folder).
    await waitFor(() => existsSync(s.pidFile) && pgrep(s.tempRoot).length >= 2);
    expect(pgrep(s.tempRoot).length).toBeGreaterThanOrEqual(2);
    controller.abort();
    const err = await running;
    expect(err).toBeInstanceOf(FileconvError);
    expect((err as FileconvError).message).toContain('cancelled');
    await waitFor(() => pgrep(s.tempRoot).length === 0);
    expect(pgrep(s.tempRoot)).toEqual([]);
    expect(readdirSync(s.tempRoot)).toEqual([]);
    expect(events.map((e) => e.kind)).not.toContain('fallback');
    expect(existsSync(s.outDir)).toBe(false);
  });
});

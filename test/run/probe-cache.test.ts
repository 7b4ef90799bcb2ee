import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/step.js';

/**
 * A fixture executable playing an engine: it prints a version and counts its runs in a file, so
 * the test sees whether a probe ran the binary or answered from the cache.
 */
function fakeEngine(dir: string, version: string, exitCode = 0): { path: string; runs: () => number } {
  const counter = join(dir, 'runs');
  writeFileSync(counter, '');
  const path = join(dir, 'fake-engine');
  // Written beside and renamed over, as a package upgrade replaces a binary.
  const next = `${path}.new`;
  writeFileSync(
    next,
    `#!/bin/sh\necho run >> '${counter}'\necho "fake-engine ${version}"\nexit ${exitCode}\n`,
  );
  chmodSync(next, 0o755);
  renameSync(next, path);
  return { path, runs: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
}

/** The module as a new process sees it: nothing remembered in memory. */
async function freshProcess() {
  vi.resetModules();
  return (await import('../../src/run/probe-cache.js')).binaryOutput;
}

describe('engine probes kept between processes', () => {
  let before: string | undefined;
  let cache: string;
  beforeEach(() => {
    before = process.env.FILECONV_CACHE_DIR;
    cache = tempDir();
    process.env.FILECONV_CACHE_DIR = cache;
  });
  afterEach(() => {
    if (before === undefined) delete process.env.FILECONV_CACHE_DIR;
    else process.env.FILECONV_CACHE_DIR = before;
  });

  it('runs a binary once, then answers from the cache in a later process', async () => {
    const engine = fakeEngine(tempDir(), '1.2.3');
    const first = await (await freshProcess())(engine.path, ['--version']);
    expect(first).toEqual({ exitCode: 0, all: 'fake-engine 1.2.3' });
    const second = await (await freshProcess())(engine.path, ['--version']);
    expect(second).toEqual(first);
    expect(engine.runs()).toBe(1);
    // Other arguments are another question.
    await (await freshProcess())(engine.path, ['-encoders']);
    expect(engine.runs()).toBe(2);
  });

  it('runs the binary again once it is replaced, as an upgrade does', async () => {
    const dir = tempDir();
    fakeEngine(dir, '1.2.3');
    await (await freshProcess())(join(dir, 'fake-engine'), ['--version']);
    const upgraded = fakeEngine(dir, '1.2.4');
    expect((await (await freshProcess())(upgraded.path, ['--version'])).all).toBe('fake-engine 1.2.4');
    expect(upgraded.runs()).toBe(1);
  });

  it('keeps no failed run, and nothing when the cache is off', async () => {
    const failing = fakeEngine(tempDir(), '0', 1);
    for (let i = 0; i < 2; i++) await (await freshProcess())(failing.path, ['--version']);
    expect(failing.runs()).toBe(2);
    // Nor in the process that ran it: `doctor --install` probes again after installing.
    const sameProcess = await freshProcess();
    for (let i = 0; i < 2; i++) await sameProcess(failing.path, ['--version']);
    expect(failing.runs()).toBe(4);

    process.env.FILECONV_CACHE_DIR = 'off';
    const engine = fakeEngine(tempDir(), '2.0');
    for (let i = 0; i < 2; i++) await (await freshProcess())(engine.path, ['--version']);
    expect(engine.runs()).toBe(2);
  });
});

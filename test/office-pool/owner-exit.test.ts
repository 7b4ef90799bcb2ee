import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leftoverOfficeProcesses, leftoverOfficeProcessesSettled } from './leftovers.js';

const script = fileURLToPath(new URL('./fixtures/hold-pool.ts', import.meta.url));

/** Runs the fixture in its own node process; resolves with the instance it started, and the child. */
function startOwner(mode: 'exit' | 'hold' | 'convert') {
  const child = spawn(process.execPath, ['--import', 'tsx', script, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = new Promise<{ dir: string; pid: number }>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`owner exited with ${code} before starting the pool`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, started, exited };
}

describe('no soffice outlives its owner', () => {
  it('an owner that ends without closing the pool takes its instances with it', async () => {
    const owner = startOwner('exit');
    const { dir, pid } = await owner.started;
    expect(pid).toBeGreaterThan(0);
    await owner.exited;
    expect(await leftoverOfficeProcessesSettled([dir])).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it('an owner killed with SIGKILL leaves no soffice behind (the bridge sees its stdin close)', async () => {
    const owner = startOwner('hold');
    const { dir } = await owner.started;
    expect(leftoverOfficeProcesses([dir]).length).toBeGreaterThan(0);
    owner.child.kill('SIGKILL');
    await owner.exited;
    expect(await leftoverOfficeProcessesSettled([dir])).toEqual([]);
  });

  it('an owner killed with SIGKILL in the middle of a conversion leaves no soffice behind', async () => {
    const owner = startOwner('convert');
    const { dir } = await owner.started;
    expect(leftoverOfficeProcesses([dir]).length).toBeGreaterThan(0);
    owner.child.kill('SIGKILL');
    await owner.exited;
    // The bridge is inside the conversion, not reading its stdin: it must notice the owner's end
    // without waiting for the conversion to finish.
    expect(await leftoverOfficeProcessesSettled([dir])).toEqual([]);
  });
});

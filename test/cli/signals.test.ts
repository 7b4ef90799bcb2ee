import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/helpers.js';

const FIXTURES = join(import.meta.dirname, 'signal-fixtures');

/**
 * A process that stops on signals, while execa runs a subprocess of its own: execa's exit hook then
 * listens for the same signals and re-raises them when it finds itself the only listener, which
 * killed a worker in the middle of finishing its conversions.
 */
function runFixture(name: string): Promise<{ code: number | null; signal: string | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, name)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('ready') && !child.killed) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('exit', (code, signal) => resolve({ code, signal, output }));
  });
}

describe('stopping on SIGTERM while a subprocess runs', () => {
  it('a server or worker finishes its shutdown and exits 0', async () => {
    const r = await runFixture('serve-stop.ts');
    expect(r, r.output).toMatchObject({ code: 0, signal: null });
    expect(r.output).toContain('SIGTERM: finishing running conversions');
    expect(r.output).toContain('shut down');
  });

  it('a command aborts its conversions and exits with its own code, 143', async () => {
    const r = await runFixture('convert-stop.ts');
    expect(r, r.output).toMatchObject({ code: 143, signal: null });
    expect(r.output).toContain('aborted true');
  });
});

import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runProcess } from '../../src/run/process.js';
import {
  DEFAULT_ADDRESS_SPACE_BYTES,
  DEFAULT_OUTPUT_BYTES,
  engineOutputLimit,
  engineSandbox,
  resetEngineSandbox,
  sandboxedCommand,
} from '../../src/run/sandbox.js';
import { stepContext } from '../helpers/step.js';

/** The OS limits runProcess puts around engines, seen from inside a real engine process. */
describe('engine process limits', () => {
  afterEach(() => {
    delete process.env.FILECONV_ENGINE_SANDBOX;
    delete process.env.FILECONV_ENGINE_MEMORY_LIMIT;
    delete process.env.FILECONV_ENGINE_OUTPUT_LIMIT;
    resetEngineSandbox();
  });

  it('probes prlimit and unshare here (root, util-linux installed)', () => {
    const s = engineSandbox();
    expect(s.enabled).toBe(true);
    expect(s.limits).toBe(true);
    if (process.getuid?.() === 0) expect(s.network).toBe(true);
  });

  it('caps the address space, CPU time and core dumps of an engine', async () => {
    const { stdout } = await runProcess('cat', ['/proc/self/limits'], stepContext(30_000));
    const line = (name: string) => stdout.split('\n').find((l) => l.startsWith(name)) ?? '';
    expect(line('Max address space')).toContain(String(DEFAULT_ADDRESS_SPACE_BYTES));
    expect(line('Max cpu time')).toMatch(/\s70\s+70\s/); // twice 30 s, plus 10 s
    expect(line('Max core file size')).toMatch(/\s0\s+0\s/);
    expect(line('Max file size')).toContain(String(DEFAULT_OUTPUT_BYTES));
  });

  it('stops an engine writing past its output cap with OUTPUT_TOO_LARGE, killed or refused', async () => {
    process.env.FILECONV_ENGINE_OUTPUT_LIMIT = '1M';
    resetEngineSandbox();
    expect(engineOutputLimit()).toBe(1024 ** 2);
    const ctx = stepContext();
    // dd takes SIGXFSZ's default action (killed); a shell reports its killed child with status
    // 128+25; Python ignores the signal and its write fails with EFBIG.
    const dd = ['if=/dev/zero', 'of=big.bin', 'bs=1M', 'count=5'];
    await expect(runProcess('dd', dd, ctx)).rejects.toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
    await expect(runProcess('sh', ['-c', `dd ${dd.join(' ')}`], ctx)).rejects.toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
    });
    const python = ['-c', 'open("big.py.bin", "wb").write(bytes(5 << 20))'];
    await expect(runProcess('python3', python, ctx)).rejects.toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
    // A pipe is not a file: the cap leaves stdout alone.
    const head = await runProcess('head', ['-c', '5M', '/dev/zero'], ctx);
    expect(head.stdout.length).toBe(5 * 1024 ** 2);
    expect(statSync(`${ctx.workDir}/big.bin`).size).toBeLessThanOrEqual(1024 ** 2);
  });

  // Network namespaces need root (or CAP_SYS_ADMIN); doctor reports when they are missing.
  it.skipIf(!engineSandbox().network)(
    'gives the engine a network namespace with loopback only, and it cannot reach a listener',
    async () => {
      const { stdout } = await runProcess('cat', ['/proc/net/dev'], stepContext());
      const interfaces = stdout
        .split('\n')
        .slice(2)
        .map((l) => l.split(':')[0]?.trim())
        .filter(Boolean);
      expect(interfaces).toEqual(['lo']);

      let hits = 0;
      const server = createServer((_, res) => {
        hits++;
        res.end('hi');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const fetch = [
        '-c',
        `import urllib.request; print(urllib.request.urlopen("${url}", timeout=5).read())`,
      ];
      try {
        await expect(runProcess('python3', fetch, stepContext())).rejects.toMatchObject({
          name: 'EngineProcessError',
        });
        expect(hits).toBe(0);
        const opted = await runProcess('python3', fetch, stepContext(), {
          limits: { isolateNetwork: false },
        });
        expect(opted.stdout).toContain('hi');
        expect(hits).toBe(1);
      } finally {
        server.close();
      }
    },
  );

  it('an engine past its memory cap fails instead of taking the machine', async () => {
    // A 3 GiB allocation: fine without the cap (pages are never touched), refused under 2 GiB.
    const grab = ['-c', 'b = bytearray(3 * 1024 ** 3); print("allocated")'];
    await expect(runProcess('python3', grab, stepContext())).rejects.toMatchObject({
      name: 'EngineProcessError',
      stderr: expect.stringContaining('MemoryError'),
    });
    const uncapped = await runProcess('python3', grab, stepContext(), {
      limits: { addressSpaceBytes: null },
    });
    expect(uncapped.stdout).toContain('allocated');
  });

  it('leaves LibreOffice without an address-space cap, and per-call limits override the default', () => {
    const office = sandboxedCommand('/usr/bin/soffice', ['--version'], 60_000);
    expect(office.args.join(' ')).not.toContain('--as=');
    expect(office.args.join(' ')).toContain('--cpu=130');
    const custom = sandboxedCommand('/usr/bin/gs', ['-v'], 60_000, {
      addressSpaceBytes: 1024 ** 3,
      isolateNetwork: false,
    });
    expect(custom.args).toContain(`--as=${1024 ** 3}`);
    expect(custom.file).not.toMatch(/unshare$/);
    expect(custom.args.slice(-3)).toEqual(['--', '/usr/bin/gs', '-v']);
  });

  it("runs a background engine's processes (video transcodes) at a lower CPU priority, inside the sandbox", async () => {
    // The niceness each process sees, read by the kernel's own field (19th of /proc/self/stat).
    const niceness = async (background: boolean) => {
      const { stdout } = await runProcess('cat', ['/proc/self/stat'], { ...stepContext(), background });
      return Number(stdout.slice(stdout.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const usual = await niceness(false);
    expect(await niceness(true)).toBe(Math.min(19, usual + 10));
  });

  it('FILECONV_ENGINE_SANDBOX=off runs engines bare', async () => {
    process.env.FILECONV_ENGINE_SANDBOX = 'off';
    resetEngineSandbox();
    expect(sandboxedCommand('/usr/bin/gs', ['-v'], 60_000)).toEqual({ file: '/usr/bin/gs', args: ['-v'] });
    const { stdout } = await runProcess('cat', ['/proc/self/limits'], stepContext());
    expect(stdout.split('\n').find((l) => l.startsWith('Max address space'))).toContain('unlimited');
  });
});

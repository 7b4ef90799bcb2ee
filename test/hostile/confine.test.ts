import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_ACCOUNT, engineConfinement, resetEngineConfinement } from '../../src/run/confine.js';
import { handToEngine } from '../../src/run/engine-files.js';
import { runProcess } from '../../src/run/process.js';
import { runConversion } from '../../src/run/runner.js';
import { stepContext } from '../helpers/step.js';

const root = process.getuid?.() === 0;
const confined = engineConfinement().mountNamespace;

/** A job folder as the runner makes one: handed to the engine user, with a work folder inside. */
async function jobContext() {
  const jobDir = mkdtempSync(join(base, 'job-'));
  const workDir = join(jobDir, 'work');
  mkdirSync(workDir);
  await handToEngine([jobDir, workDir]);
  return { ...stepContext(30_000), jobDir, workDir };
}

let base: string;
let secretDir: string;
let secret: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'fileconv-confine-'));
  secretDir = mkdtempSync(join(tmpdir(), 'fileconv-confine-secret-'));
  secret = join(secretDir, 'secret.txt');
  writeFileSync(secret, 'CONFINE-SECRET\n', { mode: 0o644 });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  rmSync(secretDir, { recursive: true, force: true });
});

/** What an engine process sees and may do, run through runProcess with a job folder. */
describe('engine confinement', () => {
  it.skipIf(!root)('runs engines as an unprivileged user with no capabilities', async () => {
    const ctx = await jobContext();
    const { stdout } = await runProcess(
      'sh',
      ['-c', 'id -u; grep -E "^Cap(Eff|Bnd):" /proc/self/status'],
      ctx,
    );
    const [uid, ...caps] = stdout.trim().split('\n');
    expect(Number(uid)).toBe(engineConfinement().user?.uid);
    expect(Number(uid)).not.toBe(0);
    for (const line of caps) expect(line).toMatch(/:\s+0+$/);
  });

  it.skipIf(!confined)(
    'shows the engine its job folder and the system, not the rest of the disk',
    async () => {
      const ctx = await jobContext();
      const script = `cat ${secret}; ls ${secretDir}; ls /root /home /work /var/lib 2>&1; echo ok > ${ctx.jobDir}/made; ls /`;
      const { stdout } = await runProcess('sh', ['-c', `${script}; true`], ctx);
      expect(stdout).not.toContain('CONFINE-SECRET');
      expect(stdout).toContain('No such file or directory');
      expect(readdirSync(ctx.jobDir)).toContain('made');
      const top = stdout.trim().split('\n').slice(-12);
      for (const hidden of ['root', 'home', 'srv', 'work']) expect(top).not.toContain(hidden);
      expect(top).toEqual(expect.arrayContaining(['usr', 'etc', 'tmp', 'proc', 'dev']));
    },
  );

  it.skipIf(!confined)(
    "shows the engine no other process: not the server's, nor its environment and command line",
    async () => {
      const ctx = await jobContext();
      const server = process.pid;
      const script = `ls /proc | grep -E '^[0-9]+$'; cat /proc/${server}/environ /proc/${server}/cmdline 2>&1`;
      const { stdout } = await runProcess('sh', ['-c', `${script}; true`], ctx);
      const pids = stdout
        .split('\n')
        .filter((l) => /^\d+$/.test(l))
        .map(Number);
      // The namespace's init, the shell and its ls: the few processes of this engine alone.
      expect(pids).not.toContain(server);
      expect(Math.max(...pids)).toBeLessThan(10);
      expect(stdout).toContain('No such file or directory');
      expect(stdout).not.toContain('PATH=');
    },
  );

  it.skipIf(!confined || !existsSync('/var/lib/ghostscript'))(
    "lets the engine user read Ghostscript's CMaps and font maps, and nothing else of /var/lib",
    async () => {
      const ctx = await jobContext();
      const { stdout } = await runProcess(
        'sh',
        ['-c', 'ls /var/lib; head -c 20 /var/lib/ghostscript/fonts/cidfmap >/dev/null && echo readable'],
        ctx,
      );
      expect(stdout.trim().split('\n')).toEqual(['ghostscript', 'readable']);
    },
  );

  it.skipIf(!root)(
    'cannot write outside its job folder, even to a world-visible folder of root',
    async () => {
      const ctx = await jobContext();
      const outside = join(base, 'outside');
      mkdirSync(outside, { mode: 0o755 });
      await expect(runProcess('sh', ['-c', `echo x > ${outside}/pwned`], ctx)).rejects.toMatchObject({
        name: 'EngineProcessError',
      });
      expect(readdirSync(outside)).toEqual([]);
    },
  );

  it.skipIf(!root)('leaves outputs the server can read and remove', async () => {
    const ctx = await jobContext();
    await runProcess('sh', ['-c', 'echo out > out.txt'], ctx);
    const s = statSync(join(ctx.workDir, 'out.txt'));
    expect(s.uid).toBe(engineConfinement().user?.uid);
    rmSync(ctx.jobDir, { recursive: true });
  });

  it('names the engine account doctor creates', () => {
    expect(ENGINE_ACCOUNT).toBe('fileconv-engine');
    const user = engineConfinement().user;
    if (root) expect(user?.uid).toBeGreaterThan(0);
  });

  it('FILECONV_ENGINE_CONFINE=off runs engines as the server user, seeing the whole disk', async () => {
    process.env.FILECONV_ENGINE_CONFINE = 'off';
    resetEngineConfinement();
    try {
      const ctx = await jobContext();
      const { stdout } = await runProcess('sh', ['-c', `id -u; cat ${secret}`], ctx);
      expect(stdout).toBe(`${process.getuid?.()}\nCONFINE-SECRET\n`);
      expect(engineConfinement().notes).toEqual(['confinement disabled by FILECONV_ENGINE_CONFINE=off']);
    } finally {
      delete process.env.FILECONV_ENGINE_CONFINE;
      resetEngineConfinement();
    }
  });

  it('a converter called without a job folder runs its engine unconfined', async () => {
    const { stdout } = await runProcess('cat', [secret], stepContext());
    expect(stdout).toBe('CONFINE-SECRET\n');
  });

  it.skipIf(!root)(
    'converts an upload only root may read (mode 0600) through a confined engine',
    async () => {
      const input = join(base, 'private.md');
      writeFileSync(input, '# Private notes\n', { mode: 0o600 });
      const result = await runConversion({ input, from: 'md', to: 'html', outDir: join(base, 'out') });
      expect(readFileSync(result.files[0]!.path, 'utf8')).toContain('Private notes');
    },
  );
});

import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ChildServer,
  get,
  ROOT,
  removeDir,
  startChildServer,
  submit,
  tempDir,
  waitDone,
} from './helpers.js';

const hasChromium = spawnSync('chromium', ['--version']).status === 0;

const dirs: string[] = [];
const children: ChildServer[] = [];
// SIGTERM, so each server closes the browser it started (SIGKILL would leave it to notice alone).
afterAll(async () => {
  for (const c of children) {
    if (c.child.exitCode !== null) continue;
    c.child.kill('SIGTERM');
    const killer = setTimeout(() => c.child.kill('SIGKILL'), 20_000);
    await c.exited;
    clearTimeout(killer);
  }
  for (const d of dirs) removeDir(d);
}, 60_000);

async function start(extra: string[]): Promise<ChildServer> {
  const dir = tempDir();
  dirs.push(dir);
  const s = await startChildServer(dir, ['--log-format', 'json', ...extra]);
  children.push(s);
  return s;
}

/** Names of the programs running under `pid`, children and their children. */
function descendants(pid: number): string[] {
  const parents = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    names.set(Number(entry), name);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const found: string[] = [];
  const walk = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      found.push(names.get(c)!);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

async function ready(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await get(`${url}/readyz`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('not ready');
}

const browserRuns = (s: ChildServer) => descendants(s.child.pid!).some((n) => /chrom/i.test(n));

describe('--warm', () => {
  it.skipIf(!hasChromium)(
    'starts the browser while the server starts, before any conversion, and converts with it (skipped: no chromium)',
    { timeout: 120_000 },
    async () => {
      const s = await start(['--warm', 'chromium']);
      await expect.poll(() => s.output.join(''), { timeout: 60_000 }).toMatch(/warm: chromium started in/);
      expect(browserRuns(s)).toBe(true);
      const html = '<html><body><h1>Warm invoice 42</h1></body></html>';
      const done = await waitDone(s.url, await submit(s.url, 'html-pdf', 'invoice.html', html));
      expect(done.status).toBe('succeeded');
      const link = await request(`${s.url}/api/public/requests/${done.request_id}/artifacts/pdf`);
      await link.body.dump();
      const pdf = await request(new URL(String(link.headers.location), s.url).href);
      const file = join(dirs[dirs.length - 1]!, 'warm.pdf');
      writeFileSync(file, Buffer.from(await pdf.body.arrayBuffer()));
      expect(execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' })).toContain('Warm invoice 42');
    },
  );

  it.skipIf(!hasChromium)(
    'starts no browser without it: the first HTML conversion does (skipped: no chromium)',
    { timeout: 60_000 },
    async () => {
      const s = await start([]);
      await ready(s.url);
      expect(browserRuns(s)).toBe(false);
    },
  );

  it('refuses an engine that does not exist before opening anything, exit code 2', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'fileconv'), 'serve', '--port', '0', '--data-dir', dir, '--warm', 'chromium,chrome'],
      {
        encoding: 'utf8',
        env: { ...process.env, FILECONV_PORT: '', FILECONV_DATA_DIR: '' },
        timeout: 60_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--warm names no engine "chrome"; the engines are .*chromium/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

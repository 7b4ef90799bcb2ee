import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ChildServer,
  get,
  type Json,
  makeDocx,
  metaPart,
  post,
  ROOT,
  removeDir,
  startChildServer,
  submit,
  tempDir,
  waitDone,
  waitStarted,
} from './helpers.js';

interface Worker {
  child: ChildProcess;
  exited: Promise<number | null>;
}

const dirs: string[] = [];
const processes: ChildProcess[] = [];
afterAll(() => {
  for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const d of dirs) removeDir(d);
});

/** Starts `fileconv worker` on a data directory and waits until it says it runs. */
function startWorker(dataDir: string): Promise<Worker> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'fileconv'), 'worker', '--data-dir', dataDir, '--concurrency', '1'],
    { cwd: ROOT, env: { ...process.env, FILECONV_DATA_DIR: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  processes.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('fileconv worker running')) {
        clearTimeout(timer);
        resolve({ child, exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${output}`)));
  });
}

async function startApi(dataDir: string): Promise<ChildServer> {
  const api = await startChildServer(dataDir, [
    '--no-worker',
    '--rate-limit',
    '0',
    '--quota-anon',
    'conversions=50',
  ]);
  processes.push(api.child);
  return api;
}

const conversionsLeft = async (base: string): Promise<number> => {
  const res = await post(`${base}/api/public/convert?wait=0`, [metaPart({})]);
  // A refused submit still reports the caller's standing in its RateLimit header.
  const m = /"conversions";r=(\d+)/.exec(String(res.headers.ratelimit));
  return Number(m?.[1]);
};

describe('serve --no-worker with fileconv worker on one data directory', () => {
  it('files conversions on the API node and runs them in the worker, also after the worker is killed', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const docx = await makeDocx(dir, 300);
    const api = await startApi(dir);

    // Without a worker nothing runs: the request stays queued.
    const early = await submit(api.url, 'csv-json', 'early.csv', 'a,b\n1,2\n');
    const held = await get(`${api.url}/api/public/requests/${early}?wait=2`);
    expect(held.json).toMatchObject({ status: 'running', progress: { stage: 'queued' } });

    let worker = await startWorker(dir);
    const first = await waitDone(api.url, early);
    expect(first.status).toBe('succeeded');
    const json = await request(String((await get(first.artifacts[0].download)).headers.location));
    expect(JSON.parse(await json.body.text())).toEqual([{ a: 1, b: 2 }]);

    // A worker killed in the middle of a conversion: the next worker runs it again, once.
    const slow = await submit(api.url, 'docx-pdf', 'report.docx', docx);
    await waitStarted(api.url, slow);
    worker.child.kill('SIGKILL');
    await worker.exited;
    worker = await startWorker(dir);
    const done = await waitDone(api.url, slow, 120_000);
    expect(done.status).toBe('succeeded');
    expect(done.artifacts.map((a: Json) => a.name)).toEqual(['pdf']);
    const timeline = (await get(`${api.url}/api/public/requests/${slow}/timeline`)).json.events as Json[];
    const kinds = timeline.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'succeeded')).toHaveLength(1);
    expect(kinds).toContain('resumed');
    expect(timeline.find((e) => e.kind === 'started' && /attempt 2/.test(e.message))).toBeDefined();
    const pdf = await request(String((await get(done.artifacts[0].download)).headers.location));
    expect(
      Buffer.from(await pdf.body.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    // Two conversions drew two units: the rerun drew none and refunded none.
    expect(await conversionsLeft(api.url)).toBe(48);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
  }, 240_000);

  it('refuses a database or storage URL it cannot use, before starting', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [join(ROOT, 'bin', 'fileconv'), ...args, '--data-dir', dir], {
          cwd: ROOT,
          env: { ...process.env, FILECONV_DATABASE_URL: '', FILECONV_STORAGE: '' },
        });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const badDatabase = await run(['worker', '--database', 'mysql://u:secret@db/fileconv']);
    expect(badDatabase.code).toBe(2);
    expect(badDatabase.stderr).toMatch(/--database must be a postgres:\/\//);
    expect(badDatabase.stderr).not.toContain('secret');
    const badStorage = await run(['serve', '--storage', 's3://UPPER/x']);
    expect(badStorage.code).toBe(2);
    expect(badStorage.stderr).toMatch(/--storage must look like s3:\/\/bucket\/prefix/);
    const presignedOnDisk = await run(['serve', '--downloads', 'presigned']);
    expect(presignedOnDisk.code).toBe(2);
    expect(presignedOnDisk.stderr).toMatch(/presigned needs S3 storage/);
  }, 60_000);
});

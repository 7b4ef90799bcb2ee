import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChildServer,
  type ChildWorker,
  get,
  type Json,
  makeDocx,
  metaPart,
  post,
  removeDir,
  startChildServer,
  startChildWorker,
  submit,
  tempDir,
  waitDone,
} from '../server/helpers.js';
import { POSTGRES_MISSING, postgresBin, startPostgres, type TestPostgres } from '../support/postgres.js';
import { startTestS3, type TestS3 } from '../support/s3.js';

const QUOTA = 50;

/**
 * Two API nodes (`serve --no-worker`) and two workers on loopback, sharing one PostgreSQL database
 * (records and pg-boss jobs) and one S3 bucket; each process has its own data directory (scratch).
 */
describe.skipIf(!postgresBin)(`multi-node (${postgresBin ? 'PostgreSQL + S3' : POSTGRES_MISSING})`, () => {
  let pg: TestPostgres;
  let s3: TestS3;
  let env: NodeJS.ProcessEnv;
  const dirs: string[] = [];
  const apis: ChildServer[] = [];
  const workers: ChildWorker[] = [];
  const dataDir = () => {
    const d = tempDir('fileconv-node-');
    dirs.push(d);
    return d;
  };
  const startWorker = async () => {
    const w = await startChildWorker(dataDir(), ['--concurrency', '2'], env);
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startTestS3()]);
    env = {
      ...s3.env,
      FILECONV_DATABASE_URL: pg.url,
      FILECONV_STORAGE: `s3://${s3.bucket}/multinode`,
      // Longer than any conversion here, short enough for the test to see a dead worker's job move.
      FILECONV_JOB_LEASE: '20s',
    };
    const apiFlags = ['--no-worker', '--rate-limit', '0', '--quota-anon', `conversions=${QUOTA}`];
    // The first node migrates the schema; the others find it done.
    apis.push(await startChildServer(dataDir(), apiFlags, env));
    apis.push(await startChildServer(dataDir(), apiFlags, env));
    await startWorker();
    await startWorker();
  }, 180_000);

  afterAll(async () => {
    for (const p of [...apis, ...workers]) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all([...apis, ...workers].map((p) => p.exited));
    await s3?.stop();
    await pg?.stop();
    for (const d of dirs) removeDir(d);
  });

  /** Conversions left today for this client, as the node's RateLimit header says. */
  const conversionsLeft = async (base: string): Promise<number> => {
    const res = await post(`${base}/api/public/convert`, [metaPart({})]);
    return Number(/"conversions";r=(\d+)/.exec(String(res.headers.ratelimit))?.[1]);
  };

  it('serves requests made on one node through the other, and survives a worker killed mid-conversion', async () => {
    const [a, b] = apis as [ChildServer, ChildServer];
    const docx = await makeDocx(dirs[0]!, 400);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const node = i % 2 ? b : a;
      ids.push(await submit(node.url, 'docx-pdf', `report-${i}.docx`, docx));
      ids.push(await submit(node.url, 'csv-json', `rows-${i}.csv`, `n,sq\n${i},${i * i}\n`));
    }

    // Kill the first worker while it holds a conversion: its scratch folder has one in progress.
    const victim = workers[0]!;
    const scratchOf = join(dirs[2]!, 'tmp', String(victim.child.pid));
    const busy = () => {
      try {
        return readdirSync(scratchOf).length > 0;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 600 && !busy(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(busy(), workers.map((w) => w.output.join('')).join('\n---\n')).toBe(true);
    victim.child.kill('SIGKILL');
    await victim.exited;

    // Every request ends succeeded, polled through the node it was not made on.
    const ends = await Promise.all(ids.map((id, i) => waitDone(((i >> 1) % 2 ? a : b).url, id, 150_000)));
    // On a failure: the timelines of the requests that did not succeed, then each worker's own log.
    const trails = async () => {
      const lines: string[] = [];
      for (const [i, e] of ends.entries()) {
        if (e.status === 'succeeded') continue;
        const events = (await get(`${a.url}/api/public/requests/${ids[i]}/timeline`)).json.events as Json[];
        lines.push(`${ids[i]}: ${events.map((v) => `${v.kind} ${v.message}`).join(' | ')}`);
      }
      const logs = workers.map((w, n) => `worker ${n}:\n${w.output.join('').slice(-4000)}`);
      return [...lines, ...logs].join('\n---\n');
    };
    const statuses = ends.map((e) => e.status);
    expect(statuses, statuses.every((s) => s === 'succeeded') ? '' : await trails()).toEqual(
      ids.map(() => 'succeeded'),
    );

    let rerun = 0;
    for (const [i, id] of ids.entries()) {
      const other = (i >> 1) % 2 ? a : b;
      const events = (await get(`${other.url}/api/public/requests/${id}/timeline`)).json.events as Json[];
      const kinds = events.map((e) => e.kind);
      // Stored once: one success, never a failure.
      expect(kinds.filter((k) => k === 'succeeded')).toHaveLength(1);
      expect(kinds).not.toContain('failed');
      if (kinds.filter((k) => k === 'started').length > 1) rerun++;
      // Downloaded through the other node: its signed link streams the file from the bucket.
      const done = ends[i]!;
      const link = String((await get(done.artifacts[0].download)).headers.location);
      const file = Buffer.from(await (await request(link)).body.arrayBuffer());
      expect(file.length).toBe(done.artifacts[0].size);
      if (i % 2 === 0) expect(file.subarray(0, 5).toString()).toBe('%PDF-');
      else expect(JSON.parse(file.toString())).toEqual([{ n: i >> 1, sq: (i >> 1) ** 2 }]);
    }
    // The killed worker's conversion ran again on the other worker.
    expect(rerun).toBeGreaterThanOrEqual(1);

    // Eight conversions drew eight units, whichever node took them; reruns drew and refunded none.
    expect(await conversionsLeft(a.url)).toBe(QUOTA - ids.length);
    expect(await conversionsLeft(b.url)).toBe(QUOTA - ids.length);
  }, 300_000);
});

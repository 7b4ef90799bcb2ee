import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChildServer,
  type ChildWorker,
  get,
  type Json,
  makeDocx,
  removeDir,
  startChildServer,
  startChildWorker,
  submit,
  tempDir,
  waitDone,
  waitStarted,
} from '../server/helpers.js';
import { POSTGRES_MISSING, postgresBin, startPostgres, type TestPostgres } from '../support/postgres.js';
import { startTestS3, type TestS3 } from '../support/s3.js';

/** The bound: a killed worker's conversions end, on another worker, within this of the kill. */
const FAILOVER_BOUND_MS = 60_000;

/**
 * Workers as users start them, with the DEFAULT queue settings (15 min lease, 30 s heartbeat
 * limit): one API node and worker processes sharing PostgreSQL and an S3 bucket.
 */
describe.skipIf(!postgresBin)(`failover (${postgresBin ? 'PostgreSQL + S3' : POSTGRES_MISSING})`, () => {
  let pg: TestPostgres;
  let s3: TestS3;
  let env: NodeJS.ProcessEnv;
  let api: ChildServer;
  let docx: Buffer;
  const dirs: string[] = [];
  const procs: (ChildServer | ChildWorker)[] = [];
  const dataDir = () => {
    const d = tempDir('fileconv-failover-');
    dirs.push(d);
    return d;
  };
  const startWorker = async (flags: string[] = []) => {
    const dir = dataDir();
    const w = await startChildWorker(dir, ['--concurrency', '2', ...flags], env);
    procs.push(w);
    return { ...w, dir };
  };
  const outputs = () =>
    procs
      .map((p) => p.output.join(''))
      .join('\n---\n')
      .slice(-4000);

  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startTestS3()]);
    // No FILECONV_JOB_LEASE nor FILECONV_HEARTBEAT_LIMIT: the defaults are what is tested.
    env = {
      ...s3.env,
      FILECONV_DATABASE_URL: pg.url,
      FILECONV_STORAGE: `s3://${s3.bucket}/failover`,
    };
    api = await startChildServer(dataDir(), ['--no-worker', '--rate-limit', '0'], env);
    procs.push(api);
    docx = await makeDocx(dirs[0]!, 400);
  }, 180_000);

  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await s3?.stop();
    await pg?.stop();
    for (const d of dirs) removeDir(d);
  });

  /** Whether the worker with data directory `dir` and process `pid` has a conversion in its scratch space. */
  const busy = (dir: string, pid: number) => {
    try {
      return readdirSync(join(dir, 'tmp', String(pid))).length > 0;
    } catch {
      return false;
    }
  };
  const timeline = async (id: string) =>
    ((await get(`${api.url}/api/public/requests/${id}/timeline`)).json.events as Json[]).map(
      (e) => e as { kind: string; message: string },
    );
  /** pdfinfo's page count of a downloaded artifact. */
  const pdfPages = async (done: Json) => {
    const link = String((await get(done.artifacts[0].download)).headers.location);
    const file = join(dirs[0]!, `${done.request_id}.pdf`);
    writeFileSync(file, Buffer.from(await (await request(link)).body.arrayBuffer()));
    return Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file]).toString())?.[1]);
  };

  it('hands a SIGKILLed worker’s conversions to another worker within 60 s, with default settings', async () => {
    const victim = await startWorker();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await submit(api.url, 'docx-pdf', `report-${i}.docx`, docx));
    // Both of the victim's slots hold a conversion before the survivor starts: it has work to lose.
    for (let i = 0; i < 1200 && !busy(victim.dir, victim.child.pid!); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(busy(victim.dir, victim.child.pid!), outputs()).toBe(true);
    await startWorker();
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;

    // The test's own wait for every request is bounded by the 60 s from the kill.
    const endedAt: number[] = [];
    const ends = await Promise.all(
      ids.map(async (id) => {
        const done = await waitDone(api.url, id, FAILOVER_BOUND_MS - (Date.now() - killedAt));
        endedAt.push(Date.now());
        return done;
      }),
    );
    const seconds = (Math.max(...endedAt) - killedAt) / 1000;
    console.log(`failover: ${seconds.toFixed(1)} s from the SIGKILL to the last conversion's success`);
    expect(
      ends.map((e) => e.status),
      outputs(),
    ).toEqual(ids.map(() => 'succeeded'));

    let handedOn = 0;
    for (const [i, id] of ids.entries()) {
      const kinds = (await timeline(id)).map((e) => e.kind);
      expect(kinds.filter((k) => k === 'succeeded')).toHaveLength(1);
      expect(kinds).not.toContain('failed');
      const events = await timeline(id);
      if (events.some((e) => e.kind === 'requeued' && /no heartbeat/.test(e.message))) handedOn++;
      expect(await pdfPages(ends[i])).toBeGreaterThan(1);
    }
    // The killed worker held conversions; the heartbeat sweep handed them on, the lease did not.
    expect(handedOn).toBeGreaterThanOrEqual(1);
  }, 240_000);

  it('stops on SIGTERM after its running conversions finish, and exits 0', async () => {
    // Only this worker runs conversions: the survivor of the first test goes (it is idle).
    for (const p of procs) if (p !== api && p.child.exitCode === null) p.child.kill('SIGKILL');
    // A grace period well over what two cold conversions take on a loaded machine: the default 30 s
    // is what users get, but here it is the waiting that is tested, not how fast LibreOffice starts.
    const worker = await startWorker(['--shutdown-grace', '180s']);
    const ids = [
      await submit(api.url, 'docx-pdf', 'one.docx', docx),
      await submit(api.url, 'docx-pdf', 'two.docx', docx),
    ];
    await Promise.all(ids.map((id) => waitStarted(api.url, id)));
    worker.child.kill('SIGTERM');
    expect(await worker.exited, outputs()).toBe(0);
    expect(worker.output.join('')).toContain('SIGTERM');
    // What it had begun it finished within the grace period, each once.
    for (const id of ids) {
      expect((await get(`${api.url}/api/public/requests/${id}`)).json.status).toBe('succeeded');
      expect((await timeline(id)).filter((e) => e.kind === 'started')).toHaveLength(1);
    }
  }, 300_000);
});

import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { coreEngine, type ServerEngine } from '../../src/server/jobs/engine.js';
import { jobIdOf } from '../../src/store/queue/pg-boss.js';
import {
  get,
  type Json,
  removeDir,
  startTestServer,
  submit,
  type TestServer,
  waitDone,
  waitStarted,
} from '../server/helpers.js';
import { POSTGRES_MISSING, postgresBin, startPostgres, type TestPostgres } from '../support/postgres.js';
import { startTestS3, type TestS3 } from '../support/s3.js';

/**
 * Nodes in this process on one PostgreSQL database and one S3 bucket, running the real engines
 * made slow: each conversion waits `holdMs` after its engine finished, as a long conversion does,
 * and stops waiting when its run is aborted. The settings are scaled down from the defaults by the
 * same ratios: a conversion of 20 s against a lease of 2 s is a conversion of hours against the
 * default 15 min lease. What decides a handover is the heartbeat's age (at most a sixth of the
 * limit on a live worker) against the limit, which holds at any scale; the limit here is 6 s, so
 * that a test machine busy enough to stall this process for a few seconds does not pass for a dead
 * worker.
 */
describe.skipIf(!postgresBin)(`heartbeats (${postgresBin ? 'PostgreSQL + S3' : POSTGRES_MISSING})`, () => {
  let pgServer: TestPostgres;
  let s3: TestS3;
  let db: pg.Client;
  let core: ServerEngine;
  const servers: TestServer[] = [];
  let prefixes = 0;

  beforeAll(async () => {
    [pgServer, s3] = await Promise.all([startPostgres(), startTestS3()]);
    // The S3 driver reads its endpoint and credentials from the environment (this file's worker only).
    Object.assign(process.env, s3.env);
    db = new pg.Client({ connectionString: pgServer.url });
    await db.connect();
    core = await coreEngine();
  }, 120_000);

  // Nodes of one test must not take the next test's jobs (one queue in the database).
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      await s.stop().catch(() => {});
      removeDir(s.dataDir);
    }
  });

  afterAll(async () => {
    await db?.end();
    await s3?.stop();
    await pgServer?.stop();
  });

  /** A node of the deployment named `group`: conversions take `holdMs` longer than the engine. */
  const startNode = async (group: string, flags: Record<string, string>, holdMs: number) => {
    const slow: ServerEngine = {
      ...core,
      // Through the file path (scratch folder, heartbeat), not in memory.
      inMemoryLimit: async () => 0,
      convert: async (job) => {
        const result = await core.convert(job);
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, holdMs);
          job.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(job.signal?.reason);
          });
        });
        return result;
      },
    };
    const server = await startTestServer(
      {
        database: pgServer.url,
        storage: `s3://${s3.bucket}/${group}`,
        concurrency: '1',
        ...flags,
      },
      { engine: slow },
    );
    servers.push(server);
    return server;
  };
  const timeline = async (base: string, id: string) =>
    (await get(`${base}/api/public/requests/${id}/timeline`)).json.events as Json[];

  it('never hands on a conversion that outlives the queue’s lease on a live worker', async () => {
    const group = `lease-${++prefixes}`;
    const flags = { jobLease: '2s', heartbeatLimit: '6s' };
    const a = await startNode(group, flags, 20_000);
    const b = await startNode(group, flags, 20_000);
    const id = await submit(a.url, 'csv-json', 'rows.csv', 'n,sq\n3,9\n');
    const trail = async () => (await timeline(a.url, id)).map((e) => `${e.at} ${e.kind}: ${e.message}`);
    const done = await waitDone(b.url, id, 90_000).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${(await trail()).join('\n')}`);
    });
    expect(done.status, (await trail()).join('\n')).toBe('succeeded');
    const kinds = (await timeline(a.url, id)).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'started')).toHaveLength(1);
    expect(kinds).not.toContain('requeued');
    // The queue did give the job out again when its lease ran out (ten times shorter than the
    // conversion): the delivery found the claim alive and left it.
    const { rows } = await db.query<{ retry_count: number }>(
      `SELECT retry_count FROM pgboss.job WHERE id = $1
       UNION ALL SELECT retry_count FROM pgboss.archive WHERE id = $1`,
      [jobIdOf(id)],
    );
    expect(rows[0]?.retry_count).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('on stop, hands a conversion that outlives the grace period back, and another worker finishes it', async () => {
    const group = `grace-${++prefixes}`;
    const api = await startNode(group, { worker: 'false' }, 0);
    const leaving = await startNode(group, { shutdownGrace: '1s' }, 60_000);
    const id = await submit(api.url, 'csv-json', 'rows.csv', 'n,sq\n4,16\n');
    await waitStarted(api.url, id);
    await leaving.stop();
    // A worker that starts after the first one left takes the handed-back job.
    await startNode(group, {}, 0);
    const done = await waitDone(api.url, id, 60_000);
    expect(done.status, JSON.stringify([done, await timeline(api.url, id), leaving.logs])).toBe('succeeded');
    const main = ['received', 'started', 'requeued', 'succeeded', 'failed'];
    expect((await timeline(api.url, id)).map((e) => e.kind).filter((k) => main.includes(k))).toEqual([
      'received',
      'started',
      'requeued',
      'started',
      'succeeded',
    ]);
  }, 120_000);
});

import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresRecords } from '../../src/store/postgres-records.js';
import { jobIdOf, PgBossQueue, type PgBossQueueOptions } from '../../src/store/queue/pg-boss.js';
import { MAX_ATTEMPTS, StopRequested } from '../../src/store/types.js';
import { POSTGRES_MISSING, postgresBin, startPostgres, type TestPostgres } from '../support/postgres.js';
import { queuedConversion } from '../support/records.js';

const WORKER = fileURLToPath(new URL('./fixtures/queue-worker.ts', import.meta.url));

/** Polls `check` until it holds; fails with `what` after `ms`. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!postgresBin)(`pg-boss job queue (${postgresBin ? 'PostgreSQL' : POSTGRES_MISSING})`, () => {
  let server: TestPostgres;
  let db: pg.Client;
  const opened: PgBossQueue[] = [];
  let queueCount = 0;

  /** A queue of its own for each test, with supervision and polling quick enough to watch. */
  async function openQueue(options: Partial<PgBossQueueOptions> & { queue: string }): Promise<PgBossQueue> {
    const queue = await PgBossQueue.open({
      url: server.url,
      superviseSeconds: 1,
      pollSeconds: 0.5,
      retryDelaySeconds: 0,
      ...options,
    });
    opened.push(queue);
    return queue;
  }
  const freshName = () => `test-${++queueCount}`;

  async function jobState(queue: string, requestId: string): Promise<string | undefined> {
    const { rows } = await db.query<{ state: string }>(
      'SELECT state FROM pgboss.job WHERE name = $1 AND id = $2',
      [queue, jobIdOf(requestId)],
    );
    return rows[0]?.state;
  }

  /** Starts one worker on `queue` and waits until job `requestId` completes; returns what it ran. */
  async function workOnce(queue: PgBossQueue, name: string, requestId: string): Promise<string[]> {
    const ran: string[] = [];
    await queue.work(
      async (id) => {
        ran.push(id);
      },
      { concurrency: 1 },
    );
    await until(
      `job ${requestId} to complete`,
      async () => (await jobState(name, requestId)) === 'completed',
    );
    return ran;
  }

  beforeAll(async () => {
    server = await startPostgres();
    db = new pg.Client(server.url);
    await db.connect();
  });

  afterAll(async () => {
    await Promise.all(opened.map((q) => q.stop({ graceMs: 1_000 })));
    await db?.end();
    await server?.stop();
  });

  it('installs and opens on a fresh database when several nodes start at the same moment', async () => {
    const url = await server.createDatabase('fresh_nodes');
    const nodes = await Promise.all(
      Array.from({ length: 4 }, () => PgBossQueue.open({ url, queue: 'shared', pollSeconds: 0.5 })),
    );
    opened.push(...nodes);
    await nodes[0]!.enqueue('first');
    const ran: string[] = [];
    await nodes[3]!.work(
      async (id) => {
        ran.push(id);
      },
      { concurrency: 1 },
    );
    await until('the job to run on another node', () => ran.length === 1);
    expect(ran).toEqual(['first']);
  });

  it('stores a request enqueued twice as one job, and runs it once', async () => {
    const name = freshName();
    const queue = await openQueue({ queue: name });
    await Promise.all([queue.enqueue('req-twice'), queue.enqueue('req-twice')]);
    await queue.enqueue('req-twice');
    expect(await queue.depth()).toBe(1);

    const runs: string[] = [];
    await queue.work(
      async (id) => {
        runs.push(id);
      },
      { concurrency: 2 },
    );
    await until('the job to complete', async () => (await jobState(name, 'req-twice')) === 'completed');
    // Enqueued again once done: the finished job is still the one job for this request.
    await queue.enqueue('req-twice');
    const { rows } = await db.query('SELECT state FROM pgboss.job WHERE name = $1', [name]);
    expect(rows).toEqual([{ state: 'completed' }]);
    expect(runs).toEqual(['req-twice']);
    expect(await queue.depth()).toBe(0);
  });

  it('wakes idle workers of the node that enqueues instead of leaving the job to their next poll', async () => {
    const name = freshName();
    // An hour between polls: the job can only start because enqueue woke the worker.
    const queue = await openQueue({ queue: name, pollSeconds: 3600 });
    const ran: string[] = [];
    await queue.work(
      async (id) => {
        ran.push(id);
      },
      { concurrency: 1 },
    );
    // Its first fetch finds nothing, and it goes to sleep for the hour.
    await new Promise((r) => setTimeout(r, 1_000));
    await queue.enqueue('woken');
    await until('the woken worker to run the job', () => ran.length === 1);
    expect(ran).toEqual(['woken']);
  });

  it('wakes idle workers on other nodes when a job is filed, through NOTIFY', async () => {
    const name = freshName();
    const worker = await openQueue({ queue: name, pollSeconds: 3600 });
    const api = await openQueue({ queue: name, pollSeconds: 3600 });
    const ran: string[] = [];
    await worker.work(
      async (id) => {
        ran.push(id);
      },
      { concurrency: 1 },
    );
    await new Promise((r) => setTimeout(r, 1_000));
    await api.enqueue('filed-elsewhere');
    await until("the other node's worker to run the job", () => ran.length === 1);
    expect(ran).toEqual(['filed-elsewhere']);
  });

  it("tells other nodes of a request's change, not itself, and listens again after losing its connection", async () => {
    const name = freshName();
    const [a, b] = [await openQueue({ queue: name }), await openQueue({ queue: name })];
    const heard = { a: [] as string[], b: [] as string[] };
    await a.onChange((id) => heard.a.push(id));
    await b.onChange((id) => heard.b.push(id));
    await b.announceChange('changed-on-b');
    await until('node a to hear of the change', () => heard.a.includes('changed-on-b'));
    await a.announceChange('changed-on-a');
    await until('node b to hear of the change', () => heard.b.includes('changed-on-a'));
    expect(heard).toEqual({ a: ['changed-on-b'], b: ['changed-on-a'] });

    // Every listening connection of the deployment cut, as a database restart or a proxy would.
    const cut = await db.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'fileconv-listen'",
    );
    expect(cut.rowCount).toBeGreaterThanOrEqual(2);
    await until('node a to hear again after reconnecting', async () => {
      await b.announceChange('after-reconnect');
      return heard.a.includes('after-reconnect');
    });
  });

  it('retries a handler that throws, with backoff, up to the retry limit', async () => {
    const name = freshName();
    const queue = await openQueue({ queue: name, retryLimit: 2, retryDelaySeconds: 1 });
    const attempts = new Map<string, number[]>();
    await queue.work(
      async (id) => {
        const times = attempts.get(id) ?? [];
        times.push(Date.now());
        attempts.set(id, times);
        // 'flaky' succeeds on its third attempt; 'broken' never does.
        if (id === 'broken' || times.length < 3) throw new Error(`attempt ${times.length} fails`);
      },
      { concurrency: 2 },
    );
    await queue.enqueue('flaky');
    await queue.enqueue('broken');
    await until('the flaky job to complete', async () => (await jobState(name, 'flaky')) === 'completed');
    await until('the broken job to fail', async () => (await jobState(name, 'broken')) === 'failed');
    expect(attempts.get('flaky')).toHaveLength(3);
    // The first attempt and two retries, then no more.
    expect(attempts.get('broken')).toHaveLength(3);
    const { rows } = await db.query<{ retry_count: number }>(
      'SELECT retry_count FROM pgboss.job WHERE name = $1 AND id = $2',
      [name, jobIdOf('broken')],
    );
    expect(rows[0]?.retry_count).toBe(2);
  });

  it('gives the job of a worker killed mid-job to another worker once its lease runs out', async () => {
    const name = freshName();
    const leaseSeconds = 2;
    const child: ChildProcess = fork(WORKER, [server.url, name, String(leaseSeconds)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const started: string[] = [];
    let ready = false;
    child.on('message', (m: { started?: string; ready?: boolean }) => {
      if (m.started) started.push(m.started);
      if (m.ready) ready = true;
    });
    try {
      await until('the worker process to start', () => ready);
      const queue = await openQueue({ queue: name, leaseSeconds });
      await queue.enqueue('orphan');
      await until('the worker process to take the job', () => started.includes('orphan'));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      expect(await jobState(name, 'orphan')).toBe('active');

      const finishedBy = await workOnce(queue, name, 'orphan');
      expect(finishedBy).toEqual(['orphan']);
      expect(started).toEqual(['orphan']);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('delivers a job whose every attempt dies once more than the attempt limit, so the request ends failed', async () => {
    const name = freshName();
    const records = await openPostgresRecords(server.url);
    try {
      await records.requests.createRequest(queuedConversion('doomed', Date.now()), []);
      const queue = await openQueue({ queue: name });
      await queue.work(
        async (id) => {
          // A delivery of a request that already ended (claim answers undefined) does nothing.
          const claimed = await records.requests.claim(id, Date.now());
          if (claimed && claimed.attempts <= MAX_ATTEMPTS)
            throw new Error(`attempt ${claimed.attempts} died`);
          if (claimed)
            await records.requests.finishFailed(
              id,
              { code: 'CONVERT_FAILED', message: 'given up' },
              Date.now(),
            );
        },
        { concurrency: 1 },
      );
      await queue.enqueue('doomed');
      await until('the job to complete', async () => (await jobState(name, 'doomed')) === 'completed');
      expect(await records.requests.getRequest('doomed')).toMatchObject({
        status: 'failed',
        queue: 'done',
        attempts: MAX_ATTEMPTS + 1,
      });
    } finally {
      await records.close();
    }
  });

  it('runs at most `concurrency` jobs at once', async () => {
    const name = freshName();
    const queue = await openQueue({ queue: name });
    const ids = Array.from({ length: 6 }, (_, i) => `c${i}`);
    for (const id of ids) await queue.enqueue(id);
    let active = 0;
    let most = 0;
    const done: string[] = [];
    await queue.work(
      async (id) => {
        active++;
        most = Math.max(most, active);
        // Hold the slot until a second job runs beside it (or, for the last one, a moment passes).
        const deadline = Date.now() + 1_500;
        while (active < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 100));
        active--;
        done.push(id);
      },
      { concurrency: 2 },
    );
    await until('all jobs to finish', () => done.length === ids.length);
    expect(most).toBe(2);
    expect(done.sort()).toEqual(ids);
  });

  it("runs a job of a free lane while a long job holds its own lane's slots, ahead of that lane's later jobs", async () => {
    const name = freshName();
    // Lanes poll only once an hour: filing a job must wake its lane's workers, on this node and another.
    const worker = await openQueue({ queue: name, lanePollSeconds: 3600 });
    const api = await openQueue({ queue: name, lanePollSeconds: 3600 });
    let release!: () => void;
    const longRuns = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const done: string[] = [];
    await worker.work(
      async (id) => {
        started.push(id);
        if (id === 'video-long') await longRuns;
        done.push(id);
      },
      { concurrency: 1, lanes: ['ffmpeg', 'sharp'] },
    );
    await api.enqueue('video-long', undefined, 'ffmpeg');
    await until('the long job to start', () => started.includes('video-long'));
    await api.enqueue('video-later', undefined, 'ffmpeg');
    await api.enqueue('picture', undefined, 'sharp');
    await until('the picture to be done', () => done.includes('picture'));
    // The later video waits for the ffmpeg lane's one slot, which the long one holds.
    expect(started).toEqual(['video-long', 'picture']);
    expect(await worker.depth()).toBe(1);
    release();
    await until('the later video to be done', () => done.includes('video-later'));
    expect(done).toEqual(['picture', 'video-long', 'video-later']);
    const { rows } = await db.query<{ name: string }>(
      'SELECT DISTINCT name FROM pgboss.job WHERE name LIKE $1 ORDER BY name',
      [`${name}%`],
    );
    expect(rows.map((r) => r.name)).toEqual([`${name}.ffmpeg`, `${name}.sharp`]);
  });

  it("makes the lanes' queues when several nodes start working and filing at the same moment", async () => {
    // Each lane's first use creates its pg-boss queue, which attaches a partition to the job table:
    // creations on several nodes at once deadlock in PostgreSQL, which fails one of them.
    const name = freshName();
    const lanes = Array.from({ length: 12 }, (_, i) => `engine${i}`);
    const nodes = await Promise.all(Array.from({ length: 4 }, () => openQueue({ queue: name })));
    const ran = new Set<string>();
    await Promise.all([
      ...nodes.slice(0, 2).map((node, n) =>
        node.work(
          async (id) => {
            ran.add(id);
          },
          { concurrency: 1, lanes: n === 0 ? lanes : [...lanes].reverse() },
        ),
      ),
      ...nodes
        .slice(2)
        .flatMap((node, n) => lanes.map((lane) => node.enqueue(`${lane}-from-${n}`, undefined, lane))),
    ]);
    await until('every job to run', () => ran.size === lanes.length * 2);
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pgboss.queue WHERE name LIKE $1',
      [`${name}.%`],
    );
    expect(rows[0]?.n).toBe(lanes.length);
  });

  it('stop() aborts a handler that outlives the grace period and leaves its job for another worker', async () => {
    const name = freshName();
    const first = await PgBossQueue.open({
      url: server.url,
      queue: name,
      superviseSeconds: 1,
      pollSeconds: 0.5,
      retryDelaySeconds: 0,
    });
    let aborted: unknown;
    let taken = false;
    await first.work(
      // Resolves when aborted, as a handler that puts its request back in the queue does.
      (_id, signal) =>
        new Promise<void>((resolve) => {
          taken = true;
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            resolve();
          });
        }),
      { concurrency: 1 },
    );
    await first.enqueue('interrupted');
    await until('the first worker to take the job', () => taken);
    await first.stop({ graceMs: 500 });
    expect(aborted).toBeInstanceOf(StopRequested);
    expect(await jobState(name, 'interrupted')).toBe('retry');

    const finished = await workOnce(await openQueue({ queue: name }), name, 'interrupted');
    expect(finished).toEqual(['interrupted']);
  });
});

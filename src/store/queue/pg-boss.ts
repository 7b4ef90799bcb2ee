import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { databaseUnavailable } from '../postgres-db.js';
import type { JobQueue } from '../types.js';
import { MAX_ATTEMPTS, StopRequested } from '../types.js';
import { PgListener } from './pg-notify.js';

/** Settings of the PostgreSQL job queue; the defaults suit conversions of up to several minutes. */
export interface PgBossQueueOptions {
  /** postgres:// URL (the records database: pg-boss keeps its tables in their own schema). */
  url: string;
  /** pg-boss's queue name. */
  queue?: string;
  /** PostgreSQL schema of pg-boss's tables. */
  schema?: string;
  /**
   * The lease: a job still active this long after a worker took it is failed and delivered again.
   * The delivery runs the conversion only if its worker's heartbeat stopped (RequestStore.claim):
   * a live worker's long conversion is not handed on, so the lease is a backstop, not the limit.
   */
  leaseSeconds?: number;
  /** Retries after the first attempt, for a handler that throws or a lease that runs out. */
  retryLimit?: number;
  /** Seconds before the first retry; doubled (with jitter) for each further one. */
  retryDelaySeconds?: number;
  /** How often expired leases are looked for (one node of the deployment does it each time). */
  superviseSeconds?: number;
  /** How often an idle worker of jobs filed without a lane asks for a job. */
  pollSeconds?: number;
  /**
   * How often an idle worker of a lane asks for a job. Lanes are many (one per engine), and filing
   * a job wakes its lane's workers on every node through NOTIFY: the poll only finds retries, lost
   * signals and expired leases.
   */
  lanePollSeconds?: number;
  /** Connections of this node's pool for the queue. */
  maxConnections?: number;
  onError?: (err: Error) => void;
}

const DEFAULTS = {
  queue: 'fileconv-conversions',
  schema: 'pgboss',
  leaseSeconds: 15 * 60,
  // One delivery more than the runner's attempt limit: the delivery after the last allowed
  // attempt finds the request over the limit and fails it, rather than pg-boss giving up on the
  // job and leaving the request `working`.
  retryLimit: MAX_ATTEMPTS,
  retryDelaySeconds: 5,
  superviseSeconds: 30,
  pollSeconds: 0.5,
  lanePollSeconds: 5,
  maxConnections: 5,
} as const;

/** Tries at making one queue before the error is the caller's. */
const MAKE_QUEUE_ATTEMPTS = 3;

interface ConversionJob {
  requestId: string;
}

/**
 * pg-boss job ids are UUIDs: a request id maps to one by hash, so enqueueing the same request
 * again hits the job's primary key and stores nothing.
 */
export function jobIdOf(requestId: string): string {
  const h = createHash('sha256').update(requestId).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * JobQueue on pg-boss 10 (PostgreSQL, SKIP LOCKED fetches). A job is held by a lease
 * (expireInSeconds); when it runs out, pg-boss's supervision fails the job and it is delivered
 * again, to whichever worker fetches it first, whose claim of the request decides whether it runs
 * (the heartbeats in the records tell a dead worker from a slow one). A handler's AbortSignal
 * fires when stop() gives up waiting.
 */
export class PgBossQueue implements JobQueue {
  private readonly boss: PgBoss;
  private readonly settings: Required<Omit<PgBossQueueOptions, 'onError'>>;
  private readonly running = new Set<AbortController>();
  /** This node's pg-boss workers, per lane ('' for jobs filed without one). */
  private readonly workerIds = new Map<string, string[]>();
  /** Lanes whose pg-boss queue this process made sure of. */
  private readonly laneQueues = new Map<string, Promise<void>>();
  private stopping: Promise<void> | undefined;
  /** Tells this node's own signals from other nodes'. */
  private readonly nodeId = randomUUID();
  private readonly listener: PgListener;
  private readonly onError: (err: Error) => void;

  private constructor(options: PgBossQueueOptions) {
    this.settings = { ...DEFAULTS, ...definedOnly(options), url: options.url };
    const s = this.settings;
    // pg-boss hands its options to pg.Pool, which also takes the connect timeout its types omit.
    const config: PgBoss.ConstructorOptions & { connectionTimeoutMillis: number } = {
      connectionString: s.url,
      schema: s.schema,
      max: s.maxConnections,
      application_name: 'fileconv-queue',
      connectionTimeoutMillis: 10_000,
      supervise: true,
      maintenanceIntervalSeconds: s.superviseSeconds,
      schedule: false,
      pollingIntervalSeconds: s.pollSeconds,
    };
    this.boss = new PgBoss(config);
    this.onError = options.onError ?? ((err: Error) => console.error(`job queue: ${err.message}`));
    this.boss.on('error', this.onError);
    this.listener = new PgListener(s.url, this.onError);
  }

  /** NOTIFY channels, per queue so that deployments sharing a database do not wake each other. */
  private get channels() {
    return { jobs: `${this.settings.queue}:jobs`, changes: `${this.settings.queue}:changes` };
  }

  /** Connects, installs or upgrades pg-boss's schema (safe when several nodes start at once), creates the queue. */
  static async open(options: PgBossQueueOptions): Promise<PgBossQueue> {
    const queue = new PgBossQueue(options);
    const s = queue.settings;
    try {
      await queue.boss.start();
      await queue.makeQueue(s.queue);
      // A job filed by another node: this node's idle workers of its lane ask for it now, not at
      // their next poll (a node from before lanes names none: all are woken).
      await queue.listener.listen(queue.channels.jobs, (payload) => {
        const [from, lane] = payload.split(' ');
        if (from !== queue.nodeId) queue.wake(lane);
      });
    } catch (err) {
      await queue.listener.close();
      await queue.boss.stop({ graceful: false }).catch(() => {});
      throw databaseUnavailable(s.url, err);
    }
    return queue;
  }

  /**
   * The pg-boss queue of a lane: the configured queue for jobs without one (and from nodes before
   * lanes), `<queue>.<lane>` for the others, made on first use with the same policy.
   */
  private queueOf(lane: string | undefined): string {
    return lane ? `${this.settings.queue}.${lane}` : this.settings.queue;
  }

  private ensureLane(lane: string | undefined): Promise<void> {
    if (!lane) return Promise.resolve();
    let made = this.laneQueues.get(lane);
    if (!made) {
      const name = this.queueOf(lane);
      made = this.makeQueue(name);
      made.catch(() => this.laneQueues.delete(lane));
      this.laneQueues.set(lane, made);
    }
    return made;
  }

  /**
   * Makes a pg-boss queue if it is missing, with this start's settings (a queue made by an earlier
   * start keeps its settings until told). pg-boss makes a queue by attaching a partition to its job
   * table, and nodes making queues at the same moment (workers starting on every lane, a first
   * filing in a lane) deadlock: PostgreSQL fails one of them, and that node's lane had no worker,
   * or its filing answered 500. So the nodes of a deployment make queues one at a time, under an
   * advisory lock held on a connection of its own for the while; a failure all the same (the
   * database restarting) is tried again.
   */
  private async makeQueue(name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A queue that exists (every start after a deployment's first) needs no lock to be found.
        if (!(await this.boss.getQueue(name))) await this.createQueueAlone(name);
        await this.boss.updateQueue(name, { name, ...this.policy });
        return;
      } catch (err) {
        if (attempt >= MAKE_QUEUE_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
      }
    }
  }

  /** Creates a missing queue while no other node creates one, under the deployment's advisory lock. */
  private async createQueueAlone(name: string): Promise<void> {
    const client = new pg.Client({
      connectionString: this.settings.url,
      application_name: 'fileconv-queue-setup',
      connectionTimeoutMillis: 10_000,
    });
    // A connection lost meanwhile fails the query below; the event must not end the process.
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [`${this.settings.schema}:make-queue`]);
      if (!(await this.boss.getQueue(name))) await this.boss.createQueue(name, { name, ...this.policy });
    } finally {
      // Ending the session releases its advisory lock.
      await client.end().catch(() => {});
    }
  }

  private get policy() {
    const s = this.settings;
    return {
      retryLimit: s.retryLimit,
      retryDelay: s.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: s.leaseSeconds,
    };
  }

  /** Asks this node's idle workers of `lane` (all of them when undefined) for a job now. */
  private wake(lane: string | undefined): void {
    const ids = lane === undefined ? [...this.workerIds.values()].flat() : (this.workerIds.get(lane) ?? []);
    for (const id of ids) this.boss.notifyWorker(id);
  }

  async enqueue(requestId: string, handover?: number, lane?: string): Promise<void> {
    await this.ensureLane(lane);
    await this.boss.send(this.queueOf(lane), { requestId } satisfies ConversionJob, {
      id: jobIdOf(handover === undefined ? requestId : `${requestId}#handover-${handover}`),
    });
    // This node's idle workers of the lane start it at once; other nodes' are told through NOTIFY.
    this.wake(lane ?? '');
    await this.notify(this.channels.jobs, `${this.nodeId} ${lane ?? ''}`);
  }

  async announceChange(requestId: string): Promise<void> {
    await this.notify(this.channels.changes, `${this.nodeId} ${requestId}`);
  }

  onChange(listener: (requestId: string) => void): Promise<void> {
    return this.listener.listen(this.channels.changes, (payload) => {
      const [from, requestId] = payload.split(' ');
      if (from !== this.nodeId && requestId) listener(requestId);
    });
  }

  /** A signal only hastens what polling finds anyway: failing to send one is logged, not thrown. */
  private async notify(channel: string, payload: string): Promise<void> {
    try {
      await this.boss.getDb().executeSql('SELECT pg_notify($1, $2)', [channel, payload]);
    } catch (err) {
      this.onError(new Error(`signalling other nodes: ${(err as Error).message}`));
    }
  }

  async work(
    handler: (requestId: string, signal: AbortSignal) => Promise<void>,
    opts: { concurrency: number; lanes?: readonly string[] },
  ): Promise<void> {
    for (const lane of new Set(['', ...(opts.lanes ?? [])])) {
      await this.ensureLane(lane);
      await this.workLane(lane, handler, opts.concurrency);
    }
  }

  private async workLane(
    lane: string,
    handler: (requestId: string, signal: AbortSignal) => Promise<void>,
    concurrency: number,
  ): Promise<void> {
    const ids: string[] = [];
    this.workerIds.set(lane, ids);
    const pollingIntervalSeconds = lane ? this.settings.lanePollSeconds : this.settings.pollSeconds;
    // Each pg-boss worker runs one job at a time: `concurrency` workers, `concurrency` jobs at most.
    for (let i = 0; i < concurrency; i++) {
      let workerId: string | undefined;
      workerId = await this.boss.work<ConversionJob>(
        this.queueOf(lane),
        { batchSize: 1, pollingIntervalSeconds },
        async ([job]) => {
          if (!job) return;
          try {
            await this.runOne(job, handler);
          } finally {
            // A worker that just finished a job asks for the next one at once instead of
            // sleeping out its polling interval: short conversions are not capped at one a poll.
            if (workerId) this.boss.notifyWorker(workerId);
          }
        },
      );
      ids.push(workerId);
    }
  }

  /** Jobs waiting in the lanes this node knows of (those it filed or works on). */
  async depth(): Promise<number> {
    const sizes = await Promise.all(
      ['', ...this.laneQueues.keys()].map((lane) => this.boss.getQueueSize(this.queueOf(lane))),
    );
    return sizes.reduce((a, b) => a + b, 0);
  }

  stop(opts: { graceMs?: number } = {}): Promise<void> {
    this.stopping ??= this.shutDown(opts.graceMs ?? 30_000);
    return this.stopping;
  }

  private async shutDown(graceMs: number): Promise<void> {
    // Handlers still running after the grace period are aborted with StopRequested (the runner
    // puts the request back in the queue); their jobs are failed, which hands them to another
    // worker as a retry.
    const abortLate = setTimeout(() => {
      for (const c of this.running) c.abort(new StopRequested('the worker is stopping'));
    }, graceMs);
    try {
      await this.boss.stop({ graceful: true, wait: true, timeout: graceMs + 2_000 });
    } finally {
      clearTimeout(abortLate);
      await this.listener.close();
    }
  }

  private async runOne(
    job: PgBoss.Job<ConversionJob>,
    handler: (requestId: string, signal: AbortSignal) => Promise<void>,
  ): Promise<void> {
    // The lease running out does not abort the handler: a live worker's conversion carries on
    // under its heartbeat, and the job's second delivery finds the request claimed.
    const controller = new AbortController();
    this.running.add(controller);
    try {
      await handler(job.data.requestId, controller.signal);
      // A handler that gave up on an aborted job (and perhaps put its request back in the queue)
      // must not complete it: failing it is what hands it to another worker.
      if (controller.signal.aborted) throw controller.signal.reason;
    } finally {
      this.running.delete(controller);
    }
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

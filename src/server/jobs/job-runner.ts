import { type RunRequestDeps, runRequestJob } from '../../core/run-request.js';
import { MERGE_LANE } from '../../plan/lane.js';
import type { JobQueue } from '../../store/types.js';
import { announceEnd, ConversionTrace, type QueueObserver } from '../observability/conversion-trace.js';
import { beatInterval, Heartbeat } from './heartbeat.js';
import { RequestChanges } from './request-changes.js';

export interface JobRunnerDeps extends RunRequestDeps {
  jobs: JobQueue;
  /** Conversions this process runs at once; 0 for an API-only node. */
  concurrency: number;
  observers?: readonly QueueObserver[];
  /**
   * A conversion whose worker sent no heartbeat for this long is handed to another worker, in ms
   * (the workers' sweepers look every sixth of it).
   */
  heartbeatLimitMs: number;
  /** The lanes this node works on besides merges: the names of its installed engines. */
  lanes?: () => Promise<string[]>;
}

/**
 * The work queue of a node on a shared database: conversions are jobs of a JobQueue (pg-boss),
 * submitted by any API node and run by whichever worker takes them, through core's runRequestJob.
 * The same surface as the embedded ConversionQueue, so routes and metrics do not tell them apart.
 */
export class JobRunner {
  readonly changes = new RequestChanges();
  private running = 0;

  constructor(private readonly deps: JobRunnerDeps) {}

  /** Nothing to recover: a conversion whose worker died is handed on by the sweepers (sweep()). */
  async recover(): Promise<void> {}

  depth(): Promise<number> {
    return this.deps.store.countQueued();
  }

  get active(): number {
    return this.running;
  }

  submit(requestId: string, lane?: string): Promise<void> {
    return this.deps.jobs.enqueue(requestId, undefined, lane);
  }

  /**
   * Wakes this node's long polls for conversions other nodes finish; if it runs conversions, takes
   * jobs and sweeps for conversions whose worker's heartbeat stopped.
   */
  async start(): Promise<void> {
    await this.deps.jobs.onChange((id) => this.changes.changed(id));
    if (this.deps.concurrency <= 0) return;
    // A lane for every engine this node has, and merges: each waits for its own slots. The engines
    // are known once probed; jobs filed meanwhile wait in their lanes for the workers.
    this.working = (this.deps.lanes?.() ?? Promise.resolve([]))
      .then((engines) =>
        this.deps.jobs.work((id, signal) => this.run(id, signal), {
          concurrency: this.deps.concurrency,
          lanes: [...engines, MERGE_LANE],
        }),
      )
      .catch((e) => this.deps.log(`taking conversions failed: ${(e as Error).message}`));
    this.sweeper = setInterval(() => void this.sweep(), beatInterval(this.deps.heartbeatLimitMs));
  }

  async stop(graceMs: number): Promise<void> {
    clearInterval(this.sweeper);
    await this.working;
    await this.deps.jobs.stop({ graceMs });
  }

  private sweeper: NodeJS.Timeout | undefined;
  private working: Promise<void> | undefined;
  private sweeping = false;

  /**
   * Hands on the conversions of workers presumed dead, whatever the queue's lease: the store
   * releases each to one sweeper only, which files a fresh job for it (the dead worker's job stays
   * held by the queue until its lease runs out, and its later delivery finds the request taken).
   */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    const { store, jobs, heartbeatLimitMs, log } = this.deps;
    try {
      const now = Date.now();
      for (const r of await store.releaseStale(now, now - heartbeatLimitMs)) {
        const seconds = Math.round(heartbeatLimitMs / 1000);
        await store.addEvent(r.id, {
          at: now,
          kind: 'requeued',
          message: `The worker running the conversion sent no heartbeat for ${seconds} s; it goes to another worker.`,
        });
        await jobs.enqueue(r.id, r.attempts, r.lane);
      }
    } catch (e) {
      log(`looking for conversions of stopped workers failed: ${(e as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  /** Throws when the stores fail, so the queue retries the job. */
  private async run(id: string, signal: AbortSignal): Promise<void> {
    const trace = new ConversionTrace();
    const lost = new AbortController();
    const heartbeat = new Heartbeat(
      this.deps.store,
      id,
      this.deps.heartbeatLimitMs,
      (reason) => {
        this.deps.log(reason.message);
        lost.abort(reason);
      },
      this.deps.log,
    );
    this.running++;
    try {
      const outcome = await runRequestJob(
        this.deps,
        id,
        AbortSignal.any([signal, lost.signal]),
        (kind, message) => trace.event(kind, message),
        { ticket: heartbeat.ticket, claimed: () => heartbeat.start() },
      );
      heartbeat.stop();
      this.changes.changed(id);
      await this.deps.jobs.announceChange(id);
      if (outcome === 'succeeded' || outcome === 'failed')
        await announceEnd(this.deps.store, this.deps.observers ?? [], trace, id, outcome, this.deps.log);
    } finally {
      heartbeat.stop();
      this.running--;
    }
  }
}

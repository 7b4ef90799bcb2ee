import { type RunRequestDeps, runRequestJob } from '../core/run-request.js';
import type { JobQueue } from '../store/types.js';
import { announceEnd, ConversionTrace, type QueueObserver } from './conversion-trace.js';
import { RequestChanges } from './request-changes.js';

export interface JobRunnerDeps extends RunRequestDeps {
  jobs: JobQueue;
  /** Conversions this process runs at once; 0 for an API-only node. */
  concurrency: number;
  observers?: readonly QueueObserver[];
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

  /** Nothing to recover: a job whose worker died is handed out again when its lease runs out. */
  async recover(): Promise<void> {}

  depth(): Promise<number> {
    return this.deps.store.countQueued();
  }

  get active(): number {
    return this.running;
  }

  submit(requestId: string): Promise<void> {
    return this.deps.jobs.enqueue(requestId);
  }

  /** Wakes this node's long polls for conversions other nodes finish; takes jobs if it runs conversions. */
  async start(): Promise<void> {
    await this.deps.jobs.onChange((id) => this.changes.changed(id));
    if (this.deps.concurrency <= 0) return;
    await this.deps.jobs.work((id, signal) => this.run(id, signal), { concurrency: this.deps.concurrency });
  }

  async stop(graceMs: number): Promise<void> {
    await this.deps.jobs.stop({ graceMs });
  }

  /** Throws when the stores fail, so the queue retries the job. */
  private async run(id: string, signal: AbortSignal): Promise<void> {
    const trace = new ConversionTrace();
    this.running++;
    try {
      const outcome = await runRequestJob(this.deps, id, signal, (kind, message) =>
        trace.event(kind, message),
      );
      this.changes.changed(id);
      await this.deps.jobs.announceChange(id);
      if (outcome === 'succeeded' || outcome === 'failed')
        await announceEnd(this.deps.store, this.deps.observers ?? [], trace, id, outcome, this.deps.log);
    } finally {
      this.running--;
    }
  }
}

import {
  failRequest,
  type RunOutcome,
  type RunRequestDeps,
  runClaimedRequest,
} from '../../core/run-request.js';
import { MAX_ATTEMPTS, type RequestRecord, StopRequested } from '../../store/types.js';
import { announceEnd, ConversionTrace, type QueueObserver } from '../observability/conversion-trace.js';
import { RequestChanges } from './request-changes.js';

/**
 * How often a node looks for conversions filed by other processes on the same database (another
 * API node, or `serve --no-worker`); its own submissions start at once.
 */
export const QUEUE_POLL_MS = 1_000;

export interface QueueDeps extends RunRequestDeps {
  /** Conversions run at once in this process; 0 for a node that only files them. */
  concurrency: number;
  /** Looks for queued conversions this often (0: only when told by pump()). */
  pollMs?: number;
  /** Told when each conversion ends (metrics, logs, webhooks). */
  observers?: readonly QueueObserver[];
}

/**
 * The embedded work queue: conversions wait in the request store (so a restart loses nothing) and
 * at most `concurrency` run at once in this process, each through core's runClaimedRequest.
 */
export class ConversionQueue {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /**
   * Per queue lane (the engine of a conversion's main work, src/plan/lane.ts): conversions holding
   * one of the lane's `concurrency` slots (`converting`: from their claim until their engines are
   * done) and all of its conversions still under way (`running`). Storing the outputs and finishing
   * the request (digests, blob moves, records, observers) happens after the slot is given back, so
   * the next conversion's engines start meanwhile; at most another `concurrency` conversions of a
   * lane may be finishing at once. Lanes have slots of their own so that short conversions of one
   * engine are not held behind long ones of another: the engines' own semaphores
   * (src/run/concurrency.ts) still bound what runs at once inside each engine.
   */
  private readonly lanes = new Map<string, { converting: number; running: number }>();
  private accepting = true;
  /** One claiming loop at a time; a pump asked for while it runs makes it look again. */
  private pumping = false;
  private pumpAgain = false;
  private readonly poller: NodeJS.Timeout | undefined;
  /** Fired on every status change this queue makes; long-polling readers wait on it. */
  readonly changes = new RequestChanges();

  constructor(private readonly deps: QueueDeps) {
    if (deps.pollMs && deps.concurrency > 0) {
      this.poller = setInterval(() => this.pump(), deps.pollMs);
      this.poller.unref();
    }
  }

  /**
   * Start-up recovery: conversions left working by a process that stopped are queued again while
   * their input is stored, else failed with a clear message; none stays running.
   */
  async recover(): Promise<void> {
    const { store, blobs } = this.deps;
    const { requeued, failed } = await store.requeueInterrupted(Date.now(), MAX_ATTEMPTS);
    for (const r of requeued) {
      if (r.inputKey && (await blobs.stat(r.inputKey))) {
        await store.addEvent(r.id, {
          at: Date.now(),
          kind: 'resumed',
          message: 'The server restarted during the conversion; it was queued again.',
        });
      } else {
        failed.push(r);
      }
    }
    for (const r of failed) {
      const message =
        r.attempts >= MAX_ATTEMPTS
          ? `The server stopped during the conversion ${r.attempts} times; it was given up.`
          : 'The server stopped during the conversion and its input was lost.';
      await failRequest(this.deps, r, { code: 'CONVERT_FAILED', message }, message);
      this.changes.changed(r.id);
    }
  }

  /** Conversions waiting for a slot. */
  depth(): Promise<number> {
    return this.deps.store.countQueued();
  }

  /** Conversions running in this process now. */
  get active(): number {
    return this.running.size;
  }

  /** A conversion was filed: start it when a slot of its lane is free (the request row is the job and holds its lane). */
  async submit(_requestId: string, _lane?: string): Promise<void> {
    this.pump();
  }

  async start(): Promise<void> {
    this.pump();
  }

  /** Starts queued conversions while slots are free. */
  pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.claimWhileFree()
      .catch((e) => this.deps.log(`claiming queued conversions failed: ${(e as Error).message}`))
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  /** The lanes whose slots are all taken: their conversions wait, later ones of other lanes go. */
  private fullLanes(): string[] {
    const { concurrency } = this.deps;
    const full: string[] = [];
    for (const [lane, n] of this.lanes)
      if (n.converting >= concurrency || n.running >= 2 * concurrency) full.push(lane);
    return full;
  }

  private async claimWhileFree(): Promise<void> {
    while (this.accepting && this.deps.concurrency > 0) {
      const next = await this.deps.store.claimNextQueued(Date.now(), this.fullLanes());
      if (!next) return;
      if (!this.accepting) {
        // stop() came while the claim was on its way: the conversion waits for the next start.
        await this.deps.store.requeue(next.id, Date.now());
        return;
      }
      const controller = new AbortController();
      const laneName = next.lane ?? '';
      const lane = this.lanes.get(laneName) ?? { converting: 0, running: 0 };
      this.lanes.set(laneName, lane);
      lane.converting++;
      lane.running++;
      let holding = true;
      const giveBackSlot = () => {
        if (!holding) return;
        holding = false;
        lane.converting--;
        this.pump();
      };
      const done = this.run(next, controller.signal, giveBackSlot).finally(() => {
        this.running.delete(next.id);
        giveBackSlot();
        lane.running--;
        if (lane.running === 0) this.lanes.delete(laneName);
        this.pump();
      });
      // No change signal for the claim: readers wait for the end (wait.ts), which a claim is not.
      this.running.set(next.id, { controller, done });
    }
  }

  /**
   * Stops starting work and waits up to `graceMs` for running conversions; those still running then
   * are stopped and left queued for the next start.
   */
  async stop(graceMs: number): Promise<void> {
    this.accepting = false;
    clearInterval(this.poller);
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([all().then(() => 'done' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      for (const r of this.running.values()) r.controller.abort(new StopRequested('shutdown'));
      await all();
    }
  }

  private async run(r: RequestRecord, signal: AbortSignal, giveBackSlot: () => void): Promise<void> {
    const trace = new ConversionTrace();
    let outcome: RunOutcome;
    try {
      outcome = await runClaimedRequest(
        this.deps,
        r,
        signal,
        (kind, message) => trace.event(kind, message),
        giveBackSlot,
      );
    } catch (e) {
      this.deps.log(`conversion ${r.id} could not be stored: ${(e as Error).message}`);
      return;
    }
    this.changes.changed(r.id);
    if (outcome === 'succeeded' || outcome === 'failed')
      await announceEnd(this.deps.store, this.deps.observers ?? [], trace, r.id, outcome, this.deps.log);
  }
}

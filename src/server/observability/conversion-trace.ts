import type { RequestRecord, RequestStore } from '../../store/types.js';

/** One engine's attempt at one step of a conversion. */
export interface EngineStep {
  engine: string;
  outcome: 'done' | 'failed';
  durationMs: number;
}

/** What the queue tells its observers when a conversion ends (not when it is requeued at shutdown). */
export interface ConversionEnd {
  request: RequestRecord;
  outcome: 'succeeded' | 'failed';
  durationMs: number;
  /** The engines that ran, in order, each once. */
  engines: string[];
  steps: EngineStep[];
}

/** Watches the queue: metrics, logs and webhooks attach here rather than inside the queue. */
export interface QueueObserver {
  ended(end: ConversionEnd): void;
}

/**
 * Follows a conversion's run events (`engine-try`, then `step-done` or `engine-failed`) and times
 * each engine attempt, so observers get per-engine step durations without the runner knowing them.
 */
export class ConversionTrace {
  private readonly started = Date.now();
  private current: { engine: string; at: number } | undefined;
  readonly steps: EngineStep[] = [];

  event(kind: string, message: string): void {
    const now = Date.now();
    if (kind === 'engine-try') {
      this.current = { engine: message.slice(0, message.indexOf(':')) || message, at: now };
    } else if ((kind === 'step-done' || kind === 'engine-failed') && this.current) {
      const outcome = kind === 'step-done' ? 'done' : 'failed';
      this.steps.push({ engine: this.current.engine, outcome, durationMs: now - this.current.at });
      this.current = undefined;
    }
  }

  end(request: RequestRecord, outcome: ConversionEnd['outcome']): ConversionEnd {
    return {
      request,
      outcome,
      durationMs: Date.now() - this.started,
      engines: [...new Set(this.steps.map((s) => s.engine))],
      steps: this.steps,
    };
  }
}

/** Tells observers a conversion ended, as the store has it now; an observer that throws fails nothing. */
export async function announceEnd(
  store: RequestStore,
  observers: readonly QueueObserver[],
  trace: ConversionTrace,
  id: string,
  outcome: ConversionEnd['outcome'],
  log: (message: string) => void,
): Promise<void> {
  const request = await store.getRequest(id);
  if (!request) return;
  const end = trace.end(request, outcome);
  for (const o of observers) {
    try {
      o.ended(end);
    } catch (e) {
      log(`observer of ${id} failed: ${(e as Error).message}`);
    }
  }
}

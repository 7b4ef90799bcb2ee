/**
 * What engines did for one request, added up as they run (every try, fallbacks included): the
 * quota charges this, not whether a result was kept (docs/security.md, "Quota units").
 */
export interface EngineWork {
  /** Engine runs started. */
  runs: number;
  /** Milliseconds engines ran, summed. */
  ms: number;
  /** Inputs of a merge that an engine ran on. */
  inputs: number;
}

export function noWork(): EngineWork {
  return { runs: 0, ms: 0, inputs: 0 };
}

/** Adds one engine run, started at `started` (performance.now()), to the request's work. */
export function meter(work: EngineWork | undefined, started: number): void {
  if (!work) return;
  work.runs++;
  work.ms += performance.now() - started;
}

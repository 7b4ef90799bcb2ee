import { join } from 'node:path';
import type { PlannerEngines } from '../plan/graph.js';
import type { Plan, PlannedStep } from '../plan/types.js';
import { executePlan } from '../run/runner.js';

export interface StepOutcome {
  files: string[];
  /** The engine that did the step (a fallback may have taken over from the first). */
  engine: string;
}

/**
 * Runs plan steps on samples, each distinct step on each input only once: pairs that share a
 * path prefix (yaml to csv to pdf, then to png or to txt) reuse its outputs, so a slow engine
 * runs once per sample and step rather than once per pair.
 */
export class StepCache {
  private readonly done = new Map<string, Promise<StepOutcome>>();
  private made = 0;

  constructor(
    private readonly dir: string,
    private readonly engines: PlannerEngines,
    private readonly signal?: AbortSignal,
  ) {}

  run(step: PlannedStep, input: string): Promise<StepOutcome> {
    const key = `${input}\n${step.from}>${step.to}\n${step.engines.join(',')}`;
    let outcome = this.done.get(key);
    if (!outcome) {
      outcome = this.execute(step, input);
      this.done.set(key, outcome);
    }
    return outcome;
  }

  /** Runs a whole plan from `input` through the cache; returns the last step's outcome and every engine. */
  async runPlan(plan: Plan, input: string): Promise<{ files: string[]; engines: string[] }> {
    let current = input;
    let files: string[] = [];
    const engines: string[] = [];
    for (const step of plan.steps) {
      const outcome = await this.run(step, current);
      engines.push(outcome.engine);
      files = outcome.files;
      current = files[0]!;
    }
    return { files, engines };
  }

  private async execute(step: PlannedStep, input: string): Promise<StepOutcome> {
    const single: Plan = {
      key: `${step.from}-${step.to}`,
      from: step.from,
      to: step.to,
      family: step.edge.family,
      lossy: step.edge.lossy,
      cost: step.edge.cost,
      steps: [step],
      options: step.options,
    };
    let engine = step.engines[0]!;
    const result = await executePlan(
      single,
      {
        input,
        outDir: join(this.dir, String(++this.made)),
        baseName: 'out',
        signal: this.signal,
        onEvent: (e) => {
          if (e.kind === 'engine-try') engine = e.message.split(':')[0] ?? engine;
        },
      },
      { engines: this.engines },
    );
    return { files: result.files.map((f) => f.path), engine };
  }
}

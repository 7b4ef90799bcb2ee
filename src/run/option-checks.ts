import type { ConversionOptions } from '../engine/options.js';
import { pickOptions } from '../engine/options.js';
import { buildGraph, type PlannerEngines } from '../plan/graph.js';
import type { Plan } from '../plan/types.js';

/**
 * The checks of a plan's options that need this machine (Converter.checkOptions), each step's
 * first engine given the options that step takes: when a request is validated (the server, before
 * it files it) and before a conversion runs (the CLI), so both refuse it the same way.
 */
export async function checkPlanOptions(
  plan: Plan,
  options: ConversionOptions,
  engines: PlannerEngines,
): Promise<void> {
  const converters = new Map(buildGraph(engines).converters.map((c) => [c.name, c]));
  for (const step of plan.steps) {
    const converter = converters.get(step.engines[0] ?? '');
    await converter?.checkOptions?.(pickOptions(options, step.options), step.edge);
  }
}

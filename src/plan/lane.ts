import type { Plan } from './types.js';

/** The queue lane of a request that merges several inputs into one file. */
export const MERGE_LANE = 'merge';

/**
 * The queue lane of a planned conversion: the engine of its costliest step (the first of equals),
 * which is where its time goes. Conversions wait for a slot of their lane only, so a burst of
 * office documents or a long video does not hold back a picture or a table of another engine.
 */
export function laneOf(plan: Pick<Plan, 'steps'>): string {
  let main = plan.steps[0];
  for (const step of plan.steps) if (main && step.edge.cost > main.edge.cost) main = step;
  return main?.engines[0] ?? '';
}

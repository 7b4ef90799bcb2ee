import { type EngineStatus, probeEngines } from '../engine/registry.js';
import { buildCatalog } from './graph.js';

export {
  declaredOptions,
  describeOptionUse,
  type OptionedPlan,
  planWithOptions,
  routeOf,
} from './options.js';

import type { Plan } from './types.js';

export {
  buildCatalog,
  buildGraph,
  MAX_STEPS,
  type PlannerEngines,
  planConversion,
} from './graph.js';
export { assertVersionOpens } from './versions.js';

export interface Catalog {
  engines: EngineStatus[];
  plans: Plan[];
}

let cached: Promise<Catalog> | undefined;

/** Loads and probes the engines once, and returns every plan the installed ones allow. */
export function loadCatalog(): Promise<Catalog> {
  cached ??= probeEngines().then((engines) => ({ engines, plans: buildCatalog(engines) }));
  return cached;
}

/** Every plan the installed engines allow (cached per process). */
export async function listCatalog(): Promise<Plan[]> {
  return (await loadCatalog()).plans;
}

/** Forget the cached catalog (after engines were installed, or in tests that change PATH). */
export function resetCatalog(): void {
  cached = undefined;
}

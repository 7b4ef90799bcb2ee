import { FileconvError } from '../errors/index.js';
import type { Plan } from './types.js';

/**
 * Refuses a source whose version (as detection names it) no engine of the plan's first step
 * opens: UNSUPPORTED_CONVERSION naming the version, before any engine runs, rather than the
 * engine failing on it as a malformed document.
 */
export function assertVersionOpens(plan: Plan, version: string | undefined): void {
  const first = plan.steps[0];
  if (!version || !first) return;
  const reasons = first.edges.map((e) => e.unreadVersions?.[version]);
  if (reasons.length === 0 || reasons.some((r) => r === undefined)) return;
  throw new FileconvError(
    'UNSUPPORTED_CONVERSION',
    `This ${plan.from} is ${version}, which no installed engine opens (${[...new Set(reasons)].join('; ')}); save it in a later version first.`,
  );
}

import type { EngineWork } from '../run/work.js';
import type { RequestRecord, RequestStore } from '../store/types.js';

/**
 * What a request costs of the daily quota: what its engines did, not whether a result was kept.
 * A request draws its units when it is accepted (one per input; a single conversion, one), and
 * when it ends the count is moved to what it owes:
 *
 * - work: the inputs an engine ran on, or one unit per started ENGINE_SECONDS_PER_UNIT of engine
 *   time, whichever is more;
 * - succeeded: the units drawn, or the work when it is more;
 * - failed: the work less one unit (the conversion that was not delivered is not counted, so a
 *   failed single conversion is free unless its engines ran past a minute); nothing at all when
 *   no engine ran.
 *
 * Before, a failed merge gave its one unit back whatever it had run: ninety-nine conversions and
 * a broken last input cost nothing, and so could be repeated all day.
 */
export const ENGINE_SECONDS_PER_UNIT = 60;

/** Units a request drew when it was accepted. */
export function unitsDrawn(r: Pick<RequestRecord, 'inputs'>): number {
  return r.inputs?.length ?? 1;
}

/** Units a request owes once it ended, from what its engines did. */
export function unitsOwed(r: Pick<RequestRecord, 'inputs'>, work: EngineWork, succeeded: boolean): number {
  const inputs = r.inputs ? work.inputs : work.runs > 0 ? 1 : 0;
  const done = Math.max(inputs, Math.ceil(work.ms / (ENGINE_SECONDS_PER_UNIT * 1000)));
  return succeeded ? Math.max(unitsDrawn(r), done) : Math.max(0, done - 1);
}

const plural = (n: number) => `${n} unit${n === 1 ? '' : 's'}`;

/** Moves the request's quota count to what it owes, and says so in its timeline. */
export async function settleQuota(
  deps: {
    adjustQuota?(request: RequestRecord, units: number): Promise<boolean>;
    store: Pick<RequestStore, 'addEvent'>;
    log(message: string): void;
  },
  r: RequestRecord,
  work: EngineWork,
  succeeded: boolean,
): Promise<void> {
  if (!r.quota || !deps.adjustQuota) return;
  const drawn = unitsDrawn(r);
  const delta = unitsOwed(r, work, succeeded) - drawn;
  if (delta === 0) return;
  const of = `of ${r.quota.kind} for ${r.quota.day}`;
  const seconds = (work.ms / 1000).toFixed(1);
  try {
    if (!(await deps.adjustQuota(r, delta)) && delta < 0) return;
    const kept = drawn + delta;
    const message =
      delta > 0
        ? `Engines ran ${seconds} s: ${plural(delta)} ${of} counted beyond the ${plural(drawn)} drawn.`
        : kept === 0
          ? `The failed conversion was not counted: ${plural(drawn)} ${of} given back.`
          : `The failed conversion was not counted: ${plural(-delta)} ${of} given back, ${plural(kept)} kept for the engines' work (${work.inputs} inputs converted, ${seconds} s).`;
    await deps.store.addEvent(r.id, { at: Date.now(), kind: delta > 0 ? 'charged' : 'refunded', message });
  } catch (e) {
    deps.log(`quota settlement for ${r.id} failed: ${(e as Error).message}`);
  }
}

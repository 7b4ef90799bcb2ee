import { stat } from 'node:fs/promises';
import { describeChecks } from '../engine/checks.js';
import type { ConversionOptions } from '../engine/options.js';
import type { Plan } from '../plan/types.js';
import { measureChecks } from './measure-tools.js';
import type { ConversionOutputFile } from './types.js';

/**
 * Largest source or output the checks read. Words are counted in this process: tens of megabytes
 * of text would hold the event loop that answers every other request for seconds.
 */
export const CHECKS_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Says on each output what it kept (pages, pictures, words, size, duration...), measured from the
 * outputs and the source; a measure that cannot be taken is left out, never failing the conversion.
 */
export async function attachChecks(
  outputs: ConversionOutputFile[],
  plan: Plan,
  source: string,
  options: ConversionOptions,
  signal: AbortSignal,
  emit: (kind: string, message: string) => void,
): Promise<void> {
  const paths = outputs.map((o) => o.path);
  const sizes = await Promise.all(
    [source, ...paths].map((p) =>
      stat(p).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  if (sizes.some((size) => size > CHECKS_MAX_BYTES)) return;
  const checks = await measureChecks({
    from: plan.from,
    to: plan.to,
    source,
    outputs: paths,
    options,
    signal,
  });
  for (const [i, output] of outputs.entries()) {
    if (checks[i] && Object.keys(checks[i]).length > 0) output.checks = checks[i];
  }
  const summary = outputs.length === 1 && outputs[0]?.checks && describeChecks(outputs[0].checks);
  if (summary) emit('checks', `the ${plan.to} has ${summary}`);
}

import type { ConversionOptions } from '../engine/options.js';
import { artifactChecks, describeChecks } from '../fidelity/index.js';
import type { ConversionOutputFile, Plan } from './types.js';

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
  const checks = await artifactChecks({
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

import type { Converter } from '../engine/contract.js';
import type { ConversionOptions } from '../engine/options.js';
import { FileconvError } from '../errors/index.js';
import { measuredInMemory } from '../fidelity/in-memory.js';
import { describeChecks } from '../fidelity/index.js';
import { buildGraph, type PlannerEngines } from '../plan/graph.js';
import { loadCatalog } from '../plan/index.js';
import { describeOptionUse, type OptionedPlan, planWithOptions, routeOf } from '../plan/options.js';
import type { Plan } from '../plan/types.js';
import { CHECKS_MAX_BYTES } from './checks.js';
import { engineSemaphore } from './concurrency.js';
import { scrubPaths, stepFailure } from './failure.js';
import {
  cancelled,
  DEFAULT_ENGINE_CONCURRENCY,
  DEFAULT_TIMEOUT_MS,
  enginesToTry,
  progressReporter,
  type RunnerOptions,
  withTimeLimit,
} from './runner.js';
import { encodingOption, textAtTheDoor } from './text-door.js';
import type { ConversionJob, ConversionOutputFile } from './types.js';

/**
 * Inputs up to this size may be converted in memory: a server's burst of small conversions then
 * costs no scratch folders, copies, ownership hand-overs or recursive deletes. Larger inputs take
 * the file path, whose engines read and write files on their own.
 */
export const IN_MEMORY_MAX_BYTES = 1024 * 1024;

/**
 * A conversion on bytes: a ConversionJob whose input is in memory and whose output stays there.
 * Only for inputs already found to be their declared format (the server's intake does): this
 * path does not detect them again.
 */
export type InMemoryJob = Omit<ConversionJob, 'input' | 'outDir' | 'declaredChecked'> & {
  input: Uint8Array;
  declaredChecked: true;
};

export interface InMemoryResult {
  plan: Plan;
  /** The one output: its artifact name, format, bytes and checks (no path). */
  output: Omit<ConversionOutputFile, 'path'> & { bytes: Uint8Array };
}

interface InMemoryRoute {
  plan: Plan;
  options: ConversionOptions;
  rerouted: boolean;
  name: string;
  converter: Converter;
  edge: Plan['steps'][number]['edge'];
}

/**
 * The route of a conversion that can run in memory: one step, one engine (no fallback to try),
 * an in-process engine that takes the step on bytes, between formats whose checks are measured
 * in memory. Undefined otherwise, and for conversions the catalog refuses (the file path says why).
 */
function inMemoryRoute(
  job: Pick<ConversionJob, 'from' | 'to' | 'options'>,
  engines: PlannerEngines,
): InMemoryRoute | undefined {
  const plain = !job.options || Object.keys(job.options).length === 0;
  if (!plain) return findRoute(job, engines);
  // Without options (most conversions) the route depends only on the pair: found once.
  let byPair = plainRoutes.get(engines);
  if (!byPair) {
    byPair = new Map();
    plainRoutes.set(engines, byPair);
  }
  const pair = `${job.from}>${job.to}`;
  if (!byPair.has(pair)) byPair.set(pair, findRoute(job, engines));
  return byPair.get(pair);
}

const plainRoutes = new WeakMap<PlannerEngines, Map<string, InMemoryRoute | undefined>>();

function findRoute(
  job: Pick<ConversionJob, 'from' | 'to' | 'options'>,
  engines: PlannerEngines,
): InMemoryRoute | undefined {
  let chosen: OptionedPlan;
  try {
    chosen = planWithOptions(job, engines);
  } catch {
    return undefined;
  }
  const { plan, options } = chosen;
  const step = plan.steps[0];
  if (plan.steps.length !== 1 || !step) return undefined;
  if (!measuredInMemory(plan.from) || !measuredInMemory(plan.to)) return undefined;
  const converters = new Map(buildGraph(engines).converters.map((c) => [c.name, c]));
  const tries = enginesToTry(step, { converters, options });
  const only = tries[0];
  if (tries.length !== 1 || !only?.converter.inMemory?.accepts(only.edge)) return undefined;
  return { ...chosen, ...only };
}

/** Whether convertInMemory takes this conversion (its input must also be IN_MEMORY_MAX_BYTES at most). */
export async function runsInMemory(
  job: Pick<ConversionJob, 'from' | 'to' | 'options'>,
  runner: RunnerOptions = {},
): Promise<boolean> {
  return inMemoryRoute(job, runner.engines ?? (await loadCatalog()).engines) !== undefined;
}

/**
 * Runs a conversion that runsInMemory on its input's bytes, with the same timeline events,
 * progress, engine limits (concurrency, time) and failures as runConversion, and the checks its
 * engine measured with the conversion.
 */
export async function convertInMemory(job: InMemoryJob, runner: RunnerOptions = {}): Promise<InMemoryResult> {
  const route = inMemoryRoute(job, runner.engines ?? (await loadCatalog()).engines);
  if (!route) throw new FileconvError('CONVERT_FAILED', `${job.from} to ${job.to} does not run in memory.`);
  const { plan, options, name, converter, edge } = route;
  const emit = (kind: string, message: string) => job.onEvent?.({ kind, message });
  if (route.rerouted) emit('plan', `the options route this conversion through ${routeOf(plan)}`);
  for (const line of describeOptionUse(plan, options)) emit('options', line);
  const step = plan.steps[0]!;
  const signal = job.signal ?? new AbortController().signal;
  if (signal.aborted) throw cancelled();
  const door = textAtTheDoor(job.input, plan.from, encodingOption(options));
  if (door) emit('encoding', door.note);
  const input = door?.bytes ?? job.input;
  const report = progressReporter(job, 1);
  emit('step-started', `step 1/1: ${step.from} to ${step.to}`);
  report(0, 0);
  const release = await engineSemaphore(name, converter.concurrency ?? DEFAULT_ENGINE_CONCURRENCY).acquire(
    signal,
  );
  emit('engine-try', `${name}: ${step.from} to ${step.to}`);
  let result: Awaited<ReturnType<NonNullable<Converter['inMemory']>['run']>>;
  try {
    const timeoutMs = converter.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    result = await withTimeLimit(converter, signal, timeoutMs, (limited) =>
      converter.inMemory!.run(
        { edge, input, options, checksMaxBytes: CHECKS_MAX_BYTES },
        { signal: limited, timeoutMs },
      ),
    );
  } catch (error) {
    if (signal.aborted) throw cancelled();
    const message = error instanceof Error ? error.message : String(error);
    emit('engine-failed', `${name} failed: ${scrubPaths(message)}`);
    throw stepFailure([{ engine: name, error }], step.from, step.to);
  } finally {
    release();
  }
  if (result.note) emit('log', `${name}: ${scrubPaths(result.note)}`);
  report(0, 1);
  emit('step-done', 'step 1/1 done: 1 file(s)');
  report(1, 0);
  const checks = result.checks && Object.keys(result.checks).length > 0 ? result.checks : undefined;
  const summary = checks && describeChecks(checks);
  if (summary) emit('checks', `the ${plan.to} has ${summary}`);
  return {
    plan,
    output: { name: plan.to, format: plan.to, bytes: result.output, ...(checks ? { checks } : {}) },
  };
}

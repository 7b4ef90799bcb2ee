import type { Converter } from '../engine/contract.js';
import type { OptionSpec } from '../engine/option-kit.js';
import { type ConversionOptions, mergeOptionSpecs, parseOptions, pickOptions } from '../engine/options.js';
import { DOOR_OPTIONS } from '../engine/shared-options.js';
import { FileconvError } from '../errors/index.js';
import { buildGraph, type PlannerEngines, planConversion } from './graph.js';
import type { Plan } from './types.js';

const declaredCache = new WeakMap<readonly Converter[], Map<string, OptionSpec>>();

/** Every option the given converters declare, by name (one spec per name). */
export function declaredOptions(converters: readonly Converter[]): Map<string, OptionSpec> {
  const cached = declaredCache.get(converters);
  if (cached) return cached;
  const merged = mergeOptionSpecs([
    { owner: 'the runner', specs: DOOR_OPTIONS },
    ...converters.map((c) => ({ owner: c.name, specs: c.options ?? {} })),
  ]);
  declaredCache.set(converters, merged);
  return merged;
}

/**
 * Timeline lines saying, per step, which of the given options its engines take and which they
 * leave to another step, so a caller can see where each option went.
 */
export function describeOptionUse(plan: Plan, options: ConversionOptions): string[] {
  // The door's options are read before the first step (its `encoding` event says how).
  const given = Object.keys(options).filter((n) => !(n in DOOR_OPTIONS));
  if (given.length === 0) return [];
  return plan.steps.map((step, i) => {
    const takes = given.filter((n) => step.options.includes(n));
    const leaves = given.filter((n) => !step.options.includes(n));
    const parts = [
      takes.length > 0 ? `takes ${takes.join(', ')}` : 'takes none of the options',
      ...(leaves.length > 0 ? [`ignores ${leaves.join(', ')}`] : []),
    ];
    return `step ${i + 1} (${step.engines[0]}, ${step.from} to ${step.to}) ${parts.join('; ')}`;
  });
}

/** A plan's formats and engines in order: `pdf -(poppler)-> txt -(libreoffice)-> docx`. */
export function routeOf(plan: Plan): string {
  return plan.steps.reduce((route, s) => `${route} -(${s.engines[0]})-> ${s.to}`, plan.from);
}

/**
 * A conversion given options its steps do not honour, where an operation on the source format
 * does (the password of a protected PDF, a rotation before pages become images): that operation
 * runs first, given only those options. Otherwise the plan as it was.
 */
function withOperationFirst(
  plan: Plan,
  options: ConversionOptions,
  engines: PlannerEngines,
  specs: ReadonlyMap<string, OptionSpec>,
): Plan {
  const missing = Object.keys(options).filter((n) => !plan.options.includes(n));
  if (missing.length === 0 || plan.from === plan.to) return plan;
  // A report describes the file as given: a watermark or a rotation first would describe another
  // file (and break its signatures); what it needs to open the file (a password) it takes itself.
  if (plan.steps[0]?.edge.family === 'report') return plan;
  // A step that writes several files can only end a conversion.
  if (missing.some((n) => specs.get(n)?.splits)) return plan;
  const operation = planConversion(plan.from, plan.from, engines, options);
  const step = operation?.steps[0];
  if (!operation || !step || !missing.every((n) => step.options.includes(n))) return plan;
  return withOperation(plan, operation, [{ ...step, options: missing }, ...plan.steps], missing);
}

/** A plan with an operation's steps joined to it (`steps`, in their order), honouring `added` too. */
function withOperation(plan: Plan, operation: Plan, steps: Plan['steps'], added: readonly string[]): Plan {
  return {
    ...plan,
    lossy: plan.lossy || operation.lossy,
    cost: plan.cost + operation.cost,
    steps,
    options: [...new Set([...plan.options, ...added])].sort(),
  };
}

/**
 * A conversion given options that only an operation on the target format honours (page numbers,
 * a watermark or a password on the PDF a DOCX became): those operations run last, on the
 * conversion's output, given only those options. Otherwise the plan as it was.
 */
function withOperationsLast(
  plan: Plan,
  options: ConversionOptions,
  engines: PlannerEngines,
  specs: ReadonlyMap<string, OptionSpec>,
): Plan {
  const missing = Object.keys(options).filter((n) => !plan.options.includes(n));
  if (missing.length === 0 || plan.from === plan.to) return plan;
  const wanted = pickOptions(options, missing);
  let operation = planConversion(plan.to, plan.to, engines, wanted);
  if (operation && missing.some((n) => !operation?.options.includes(n)))
    operation = chainOfOperations(operation, wanted, engines, specs) ?? operation;
  if (!operation || !missing.every((n) => operation?.options.includes(n))) return plan;
  // Each added step is given only what was missing: an option the conversion already took
  // (`pages`) is not applied a second time to its output.
  const added = operation.steps.map((s) => ({ ...s, options: s.options.filter((n) => missing.includes(n)) }));
  return withOperation(plan, operation, [...plan.steps, ...added], missing);
}

/**
 * Operations on one format asked together that no single engine does (a watermark drawn by qpdf
 * and a lossy compression by Ghostscript, OCR then a password): a chain of steps on that format,
 * the options taken in their declared order (OPERATION_ORDER) whatever order the request gave,
 * each step given the longest run of them one engine honours. Undefined when no chain does them
 * all.
 */
function chainOfOperations(
  plan: Plan,
  options: ConversionOptions,
  engines: PlannerEngines,
  specs: ReadonlyMap<string, OptionSpec>,
): Plan | undefined {
  const order = (n: string) => specs.get(n)?.order ?? 0;
  const every = Object.keys(options).filter((n) => specs.get(n)?.everyStep);
  const names = Object.keys(options)
    .filter((n) => !every.includes(n))
    .sort((a, b) => order(a) - order(b));
  const steps: Plan['steps'][number][] = [];
  let lossy = false;
  let cost = 0;
  for (let i = 0; i < names.length; ) {
    let found = false;
    for (let j = names.length; j > i && !found; j--) {
      const run = names.slice(i, j);
      const step = planConversion(plan.from, plan.from, engines, pickOptions(options, run));
      const first = step?.steps[0];
      if (!step || !first || !run.every((n) => first.options.includes(n))) continue;
      steps.push({ ...first, options: [...run, ...every.filter((n) => first.options.includes(n))] });
      lossy ||= step.lossy;
      cost += step.cost;
      i = j;
      found = true;
    }
    if (!found) return undefined;
  }
  if (steps.length < 2) return undefined;
  const door = plan.options.filter((n) => n in DOOR_OPTIONS);
  return { ...plan, lossy, cost, steps, options: [...names, ...every, ...door].sort() };
}

/** Refuses options that no step of the plan honours, naming the conversion and its route. */
export function assertOptionsApply(options: ConversionOptions, plan: Plan): void {
  for (const name of Object.keys(options)) {
    if (!plan.options.includes(name)) {
      throw new FileconvError(
        'INVALID_REQUEST',
        `option ${name} does not apply to this conversion (${routeOf(plan)})`,
      );
    }
  }
}

export interface OptionedPlan {
  plan: Plan;
  options: ConversionOptions;
  /** The options took the conversion off its usual route (the caller says so on the timeline). */
  rerouted: boolean;
}

/**
 * The plan of a conversion with its options: reads the options against what the installed
 * engines declare, plans with them (an option may choose the route, like `ocr` or `mode`), and
 * refuses options that no step of the chosen plan honours. Throws UNSUPPORTED_CONVERSION when the
 * catalog has no such conversion, INVALID_REQUEST for options.
 */
export function planWithOptions(
  job: { from: string; to: string; options?: unknown },
  engines: PlannerEngines,
): OptionedPlan {
  const usual = planConversion(job.from, job.to, engines);
  if (!usual) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `Converting ${job.from} to ${job.to} is not in the catalog.`,
    );
  }
  const { converters } = buildGraph(engines);
  const specs = declaredOptions(converters);
  const options = parseOptions(job.options, specs);
  // The door's options choose no route: the steps are planned with the others.
  const stepOptions = Object.fromEntries(Object.entries(options).filter(([n]) => !(n in DOOR_OPTIONS)));
  const planned =
    Object.keys(stepOptions).length === 0 ? usual : planConversion(job.from, job.to, engines, stepOptions);
  let plan = planned && withOperationFirst(planned, stepOptions, engines, specs);
  if (plan && plan.from === plan.to && Object.keys(stepOptions).some((n) => !plan?.options.includes(n))) {
    plan = chainOfOperations(plan, stepOptions, engines, specs) ?? plan;
  }
  if (plan && plan.from !== plan.to) plan = withOperationsLast(plan, stepOptions, engines, specs);
  if (!plan) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `Converting ${job.from} to ${job.to} with these options is not in the catalog.`,
    );
  }
  assertOptionsApply(options, plan);
  return { plan, options, rerouted: routeOf(plan) !== routeOf(usual) };
}

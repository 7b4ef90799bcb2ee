import type { Recipe } from '../../core/recipes.js';
import type { DetectOptions, DetectReport } from '../../detect/index.js';
import { FileconvError } from '../../errors/index.js';
import type { Plan } from '../../plan/types.js';
import type { InMemoryJob, InMemoryResult } from '../../run/in-memory.js';
import type { MergeJob } from '../../run/merge.js';
import type { ConversionJob, ConversionResult } from '../../run/types.js';

export interface EngineInfo {
  name: string;
  version: string | undefined;
}

/** The core as the server uses it; the CLI uses the same modules directly. */
export interface ServerEngine {
  detect(file: string, hints: DetectOptions): Promise<DetectReport>;
  convert(job: ConversionJob): Promise<ConversionResult>;
  /** Several inputs converted and merged into one file (run/merge.ts). */
  merge?(job: MergeJob): Promise<ConversionResult>;
  /** Plans a merge of these inputs with these options; throws as the planner does. */
  checkMerge?(job: { inputs: { name: string; from: string }[]; to: string; options: unknown }): Promise<void>;
  /** The largest input this conversion runs on bytes with (run/in-memory.ts), 0 when it never does. */
  inMemoryLimit?(job: Pick<ConversionJob, 'from' | 'to' | 'options'>): Promise<number>;
  convertInMemory?(job: InMemoryJob): Promise<InMemoryResult>;
  /** Plans of the installed engines, and those engines. */
  catalog(): Promise<{ engines: EngineInfo[]; plans: Plan[] }>;
  /** Reads a conversion's options against what its engines declare; throws INVALID_REQUEST. */
  checkOptions(plan: Plan, options: unknown): Promise<void>;
  /**
   * Only the checks of options that need this machine (Converter.checkOptions, an OCR language
   * installed), while an upload still arrives; options the planner refuses are left to
   * checkOptions once the whole request is read.
   */
  checkMachineOptions?(plan: Plan, options: unknown): Promise<void>;
  /**
   * Checks a recipe against what this node's engines declare (core/recipes.ts, checkRecipe): an
   * API node that runs no conversions checks with the same declarations it plans with.
   */
  checkRecipe(raw: unknown): Promise<Recipe>;
  zip(files: readonly { path: string; name: string }[], zipPath: string): Promise<void>;
  /** Names no engine among `names`; throws INVALID_REQUEST naming the first unknown one. */
  checkEngineNames?(names: readonly string[]): Promise<void>;
  /**
   * Starts what the engine keeps running between conversions (Converter.warm); says what was done,
   * throws when it could not start.
   */
  warm?(name: string): Promise<string>;
}

/** The real core: detection, planner and runner of this package. */
export async function coreEngine(): Promise<ServerEngine> {
  const [
    { loadConverters },
    { detectOffThread },
    { runConversion },
    inMemory,
    { loadCatalog, planWithOptions },
    { zipOutputs },
    { runMerge, planMerge },
    { checkPlanOptions },
    recipes,
  ] = await Promise.all([
    import('../../engine/registry.js'),
    import('../../detect/pool.js'),
    import('../../run/runner.js'),
    import('../../run/in-memory.js'),
    import('../../plan/index.js'),
    import('../../run/zip.js'),
    import('../../run/merge.js'),
    import('../../run/option-checks.js'),
    import('../../core/recipes.js'),
  ]);
  return {
    // Off the main thread: the server detects every upload (src/detect/pool.ts).
    detect: (file, hints) => detectOffThread(file, hints),
    convert: (job) => runConversion(job),
    merge: (job) => runMerge(job),
    async checkMerge(job) {
      planMerge(
        { inputs: job.inputs.map((i) => ({ ...i, path: '' })), to: job.to, options: job.options },
        (await loadCatalog()).engines,
      );
    },
    inMemoryLimit: async (job) => ((await inMemory.runsInMemory(job)) ? inMemory.IN_MEMORY_MAX_BYTES : 0),
    convertInMemory: (job) => inMemory.convertInMemory(job),
    async catalog() {
      const c = await loadCatalog();
      return {
        engines: c.engines
          .filter((e) => e.probe.ok)
          .map((e) => ({ name: e.converter.name, version: e.probe.version })),
        plans: c.plans,
      };
    },
    async checkOptions(plan, options) {
      const { engines } = await loadCatalog();
      const planned = planWithOptions({ from: plan.from, to: plan.to, options }, engines);
      await checkPlanOptions(planned.plan, planned.options, engines);
    },
    async checkMachineOptions(plan, options) {
      const { engines } = await loadCatalog();
      let planned: ReturnType<typeof planWithOptions>;
      try {
        planned = planWithOptions({ from: plan.from, to: plan.to, options }, engines);
      } catch {
        return;
      }
      await checkPlanOptions(planned.plan, planned.options, engines);
    },
    checkRecipe: async (raw) => recipes.checkRecipe(raw, await loadCatalog()),
    zip: (files, zipPath) => zipOutputs(files, zipPath),
    async checkEngineNames(names) {
      if (names.length === 0) return;
      // The converters' names, without probing their engines.
      const known = (await loadConverters()).map((c) => c.name);
      const unknown = names.find((n) => !known.includes(n));
      if (unknown !== undefined)
        throw new FileconvError(
          'INVALID_REQUEST',
          `--warm names no engine "${unknown}"; the engines are ${known.join(', ')}.`,
        );
    },
    async warm(name) {
      const entry = (await loadCatalog()).engines.find((e) => e.converter.name === name);
      if (!entry?.probe.ok) return `${name} is not installed here: nothing to start`;
      if (!entry.converter.warm) return `${name} keeps nothing running between conversions: nothing to start`;
      const started = Date.now();
      await entry.converter.warm();
      return `${name} started in ${((Date.now() - started) / 1000).toFixed(1)} s`;
    },
  };
}

/**
 * Starts the engines of `--warm` one after another (each takes a core for a moment) while a node
 * starts, without holding up the start: each outcome is one log line, and an engine that cannot
 * start now is started by its first conversion, as without `--warm`.
 */
export async function warmEngines(
  engine: ServerEngine,
  names: readonly string[],
  log: (message: string) => void,
): Promise<void> {
  for (const name of names) {
    try {
      log(`warm: ${(await engine.warm?.(name)) ?? `${name}: nothing to start`}`);
    } catch (e) {
      log(`warm: ${name} could not start: ${(e as Error).message}`);
    }
  }
}

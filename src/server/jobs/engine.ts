import type { DetectOptions, DetectReport } from '../../detect/index.js';
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
  zip(files: readonly { path: string; name: string }[], zipPath: string): Promise<void>;
}

/** The real core: detection, planner and runner of this package. */
export async function coreEngine(): Promise<ServerEngine> {
  const [
    { detectOffThread },
    { runConversion },
    inMemory,
    { loadCatalog, planWithOptions },
    { zipOutputs },
    { runMerge, planMerge },
  ] = await Promise.all([
    import('../../detect/pool.js'),
    import('../../run/runner.js'),
    import('../../run/in-memory.js'),
    import('../../plan/index.js'),
    import('../../run/zip.js'),
    import('../../run/merge.js'),
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
      planWithOptions({ from: plan.from, to: plan.to, options }, (await loadCatalog()).engines);
    },
    zip: (files, zipPath) => zipOutputs(files, zipPath),
  };
}

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type FormatId, getFormat } from '../formats/index.js';
import { type PlannerEngines, planConversion } from '../plan/graph.js';
import type { Plan } from '../plan/types.js';
import { mapLimit } from '../run/concurrency.js';
import { runConversion } from '../run/runner.js';
import { hasTextSeed, muxSpeechVideo, speakingMediaSeeds, writeSeeds } from './seeds.js';

/** The sample of each source format, or why there is none. */
export interface Samples {
  files: Map<FormatId, string>;
  missing: Map<FormatId, string>;
}

const SAMPLE_CONCURRENCY = 2;

// Speech makes a better wav than a tone when an engine can speak: speech-to-text needs words.
const PREFER_DERIVED: Record<FormatId, FormatId> = { wav: 'txt' };

// A sample made from a seed of its own family keeps its content (audio from the speech wav,
// not from the video's tone); then lossless, cheap and short conversions are preferred.
function rank(p: Plan): [number, number, number, number] {
  const sameFamily = getFormat(p.from)?.family === getFormat(p.to)?.family;
  return [sameFamily ? 0 : 1, Number(p.lossy), p.cost, p.steps.length];
}

function better(a: Plan, b: Plan): boolean {
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! < rb[i]!;
  return a.from < b.from;
}

/** The best plan from any of `sources` to `to`, or undefined. */
function bestPlanFrom(sources: Iterable<FormatId>, to: FormatId, engines: PlannerEngines): Plan | undefined {
  let best: Plan | undefined;
  for (const from of sources) {
    const plan = planConversion(from, to, engines);
    if (plan && (!best || better(plan, best))) best = plan;
  }
  return best;
}

async function convertSample(
  plan: Plan,
  input: string,
  dir: string,
  engines: PlannerEngines,
  signal?: AbortSignal,
): Promise<string> {
  const outDir = join(dir, `made-${plan.to}`);
  const result = await runConversion(
    { input, from: plan.from, to: plan.to, outDir, baseName: 'sample', signal },
    { engines },
  );
  return result.files[0]!.path;
}

/**
 * Makes a sample of every format in `needed`: seeds are written directly, every other format is
 * converted from a seed (or from a sample made before it) with the catalog's own conversions, so
 * a new engine's source formats get samples without an edit here.
 */
export async function makeSamples(
  dir: string,
  needed: Set<FormatId>,
  engines: PlannerEngines,
  signal?: AbortSignal,
): Promise<Samples> {
  await mkdir(dir, { recursive: true });
  const textOnly = [...needed].every(hasTextSeed);
  const files = await writeSeeds(dir, textOnly);
  const missing = new Map<FormatId, string>();
  if (textOnly) return { files, missing };
  for (const [target, source] of Object.entries(PREFER_DERIVED)) {
    const plan = files.has(source) ? planConversion(source, target, engines) : undefined;
    if (plan?.family === 'voice') {
      files.set(
        target,
        await convertSample(plan, files.get(source)!, dir, engines, signal).catch(() => files.get(target)!),
      );
    }
  }
  // The video seed gets the speech track too, so video to text has words to find.
  const speech = files.get('wav');
  if (speech && files.has('mp4')) {
    files.set('mp4', await muxSpeechVideo(dir, speech).catch(() => files.get('mp4')!));
    for (const [id, path] of await speakingMediaSeeds(dir, speech)) files.set(id, path);
  }
  let pending = [...needed].filter((f) => !files.has(f)).sort();
  // Two rounds: a format may only be reachable from a sample made in the first.
  for (let round = 0; round < 2 && pending.length > 0; round++) {
    const planned = pending.map((to) => ({ to, plan: bestPlanFrom(files.keys(), to, engines) }));
    pending = planned.filter((p) => !p.plan).map((p) => p.to);
    await mapLimit(
      planned.filter((p) => p.plan),
      SAMPLE_CONCURRENCY,
      async ({ to, plan }) => {
        try {
          files.set(to, await convertSample(plan!, files.get(plan!.from)!, dir, engines, signal));
        } catch (e) {
          missing.set(to, `making the ${to} sample (${plan!.key}) failed: ${(e as Error).message}`);
        }
      },
    );
  }
  for (const f of pending)
    if (!missing.has(f)) missing.set(f, `no conversion makes a ${f} sample from the seeds`);
  return { files, missing };
}

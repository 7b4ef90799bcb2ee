import { constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileconvError, isFileconvError } from '../errors/index.js';
import { extensionOf, type FormatId } from '../formats/index.js';
import type { PlannerEngines } from '../plan/graph.js';
import { loadCatalog } from '../plan/index.js';
import { routeOf } from '../plan/options.js';
import type { Plan } from '../plan/types.js';
import { engineSemaphore } from './concurrency.js';
import { handToEngine, takeFromEngine } from './engine-files.js';
import { scrubPaths } from './failure.js';
import { inputLabel } from './merge-limits.js';
import { type MergeJob, type MergePlan, ofInput, planMerge } from './merge-plan.js';
import {
  cancelled,
  DEFAULT_ENGINE_CONCURRENCY,
  DEFAULT_TIMEOUT_MS,
  executePlan,
  withTimeLimit,
} from './runner.js';
import type { ConversionResult, RunEvent } from './types.js';
import { meter } from './work.js';

export { checkInputCount, inputLabel, MAX_MERGE_INPUTS } from './merge-limits.js';
export {
  checkMergeOptions,
  type MergeInput,
  type MergeJob,
  type MergePlan,
  planMerge,
} from './merge-plan.js';

/**
 * Runs a merge: every input converted in a temp folder of the merge's own (removed whatever
 * happens), the merge engine, the operation after it, the one output moved into job.outDir.
 * Progress counts one step per input, one for the merge and one for the operation after it.
 */
export async function runMerge(
  job: MergeJob,
  runner: { engines?: PlannerEngines; tempRoot?: string } = {},
): Promise<ConversionResult> {
  const engines = runner.engines ?? (await loadCatalog()).engines;
  const planned = planMerge(job, engines);
  const signal = job.signal ?? new AbortController().signal;
  const emit = (kind: string, message: string) => job.onEvent?.({ kind, message } satisfies RunEvent);
  const steps = planned.inputs.length + 1 + (planned.after ? 1 : 0);
  const progress = (step: number, fraction: number) => {
    const f = Math.min(1, Math.max(0, fraction));
    job.onProgress?.({
      percent: Math.min(99, Math.floor(((step + f) / steps) * 100)),
      stage: 'converting',
      step: step + 1,
      steps,
    });
  };
  const root = runner.tempRoot ?? process.env.FILECONV_TMPDIR ?? tmpdir();
  await mkdir(root, { recursive: true });
  const temp = await mkdtemp(join(root, 'fileconv-merge-'));
  try {
    await handToEngine([temp]);
    const ready = await preflight(planned, temp, job.to, signal, emit);
    const pdfs: { path: string; title: string }[] = [];
    for (const [i, { input, plan, options }] of planned.inputs.entries()) {
      if (signal.aborted) throw cancelled();
      const label = inputLabel(i, input.name);
      const dir = join(temp, `input-${i + 1}`);
      const started = Date.now();
      const runsBefore = job.work?.runs ?? 0;
      try {
        const path = ready.get(i);
        if (path) {
          pdfs.push({ path, title: stemOf(input.name) });
          emit('input', `${label}: already ${job.to}, merged as it is`);
        } else if (plan) {
          await mkdir(dir);
          const result = await executePlan(plan, {
            input: input.path,
            outDir: dir,
            baseName: 'converted',
            options,
            signal,
            declaredChecked: job.declaredChecked,
            work: job.work,
            onProgress: (p) => progress(i, p.percent / 100),
            onEvent: (e) => {
              if (e.kind === 'engine-failed' || e.kind === 'fallback' || e.kind === 'log')
                emit(e.kind, `${label}: ${e.message}`);
            },
          });
          const file = result.files[0];
          if (!file || result.files.length !== 1)
            throw new FileconvError('CONVERT_FAILED', `it gave ${result.files.length} files, not one`);
          pdfs.push({ path: file.path, title: stemOf(input.name) });
          emit(
            'input',
            `${label}: converted ${routeOf(plan)} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
        }
      } catch (e) {
        if (signal.aborted) throw cancelled();
        throw ofInput(e, i, input.name);
      } finally {
        if (job.work && job.work.runs > runsBefore) job.work.inputs++;
      }
      progress(i + 1, 0);
    }
    const mergeStarted = performance.now();
    const merged = await mergeStep(planned, pdfs, join(temp, 'merge'), signal, emit, (f) =>
      progress(planned.inputs.length, f),
    ).finally(() => meter(job.work, mergeStarted));
    emit('merge', `merged ${pdfs.length} inputs with ${planned.merger.name}`);
    let final = merged;
    if (planned.after) {
      progress(planned.inputs.length + 1, 0);
      const result = await executePlan(planned.after, {
        input: merged,
        outDir: join(temp, 'after'),
        baseName: 'after',
        options: planned.afterOptions,
        signal,
        declaredChecked: true,
        work: job.work,
        onEvent: (e) => emit(e.kind, e.message),
      });
      final = result.files[0]!.path;
    }
    await mkdir(job.outDir, { recursive: true });
    const path = join(job.outDir, `${job.baseName ?? 'output'}.${extensionOf(job.to)}`);
    await takeFromEngine(final);
    await rename(final, path).catch(async () => copyFile(final, path));
    const plan: Plan = {
      key: `merge-${job.to}`,
      from: job.to,
      to: job.to,
      family: 'document',
      lossy: planned.inputs.some((i) => i.plan?.lossy),
      cost: 0,
      steps: [],
      options: [],
    };
    return { plan, files: [{ name: job.to, path, format: job.to }] };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * Copies every input already in the target format into the merge's folder and opens it as the
 * merge engine will, before any input is converted: a damaged, locked or empty last input fails
 * the merge before the first engine runs, not after ninety-nine conversions. (Inputs to be
 * converted were detected and checked against their format when the request was filed.) Returns
 * the copies by input index.
 */
async function preflight(
  planned: MergePlan,
  temp: string,
  to: FormatId,
  signal: AbortSignal,
  emit: (kind: string, message: string) => void,
): Promise<Map<number, string>> {
  const copies = new Map<number, string>();
  for (const [i, { input, plan }] of planned.inputs.entries()) {
    if (plan) continue;
    const dir = join(temp, `input-${i + 1}`);
    await mkdir(dir);
    const path = join(dir, `input.${extensionOf(to)}`);
    await copyFile(input.path, path, constants.COPYFILE_FICLONE);
    copies.set(i, path);
  }
  const check = planned.merger.merge?.check;
  if (!check || copies.size === 0) return copies;
  const workDir = join(temp, 'preflight');
  await mkdir(workDir);
  await handToEngine([workDir, ...copies.values()]);
  const timeoutMs = planned.merger.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  for (const [i, path] of copies) {
    const { name } = planned.inputs[i]!.input;
    try {
      await withTimeLimit(planned.merger, signal, timeoutMs, (s) =>
        check(path, {
          signal: s,
          timeoutMs,
          workDir,
          jobDir: temp,
          progress: () => {},
          log: (m) => emit('log', `${inputLabel(i, name)}: ${scrubPaths(m)}`),
        }),
      );
    } catch (e) {
      if (signal.aborted) throw cancelled();
      throw ofInput(e, i, name);
    }
  }
  emit('preflight', `${copies.size} ${to} input(s) opened and checked before any conversion`);
  return copies;
}

function stemOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(0, dot) : name) || name;
}

/** Runs the merge engine on the converted inputs, under its concurrency limit and time limit. */
async function mergeStep(
  planned: MergePlan,
  inputs: { path: string; title: string }[],
  dir: string,
  signal: AbortSignal,
  emit: (kind: string, message: string) => void,
  progress: (fraction: number) => void,
): Promise<string> {
  const { merger } = planned;
  const outDir = join(dir, 'out');
  const workDir = join(dir, 'work');
  await mkdir(outDir, { recursive: true });
  await mkdir(workDir, { recursive: true });
  await handToEngine([dir, outDir, workDir, ...inputs.map((i) => i.path)]);
  const release = await engineSemaphore(
    merger.name,
    merger.concurrency ?? DEFAULT_ENGINE_CONCURRENCY,
  ).acquire(signal);
  // The merge reads every input: its time grows with their number.
  const timeoutMs = (merger.timeoutMs ?? DEFAULT_TIMEOUT_MS) + inputs.length * 5_000;
  try {
    const result = await withTimeLimit(merger, signal, timeoutMs, (s) =>
      merger.merge!.run(
        { inputs, outDir, options: planned.mergeOptions },
        {
          signal: s,
          timeoutMs,
          workDir,
          jobDir: dirOf(dir),
          progress,
          log: (m) => emit('log', `${merger.name}: ${scrubPaths(m)}`),
        },
      ),
    );
    const file = result.files[0];
    if (!file || !(await stat(file).catch(() => undefined))?.isFile())
      throw new FileconvError('CONVERT_FAILED', `${merger.name} wrote no merged file.`);
    return file;
  } catch (e) {
    if (signal.aborted) throw cancelled();
    const index = isFileconvError(e) ? e.extra.input : undefined;
    if (typeof index === 'number' && inputs[index - 1])
      throw ofInput(e, index - 1, namesOf(planned)[index - 1]!);
    throw e;
  } finally {
    release();
  }
}

const namesOf = (planned: MergePlan) => planned.inputs.map((i) => i.input.name);

/** The merge's temp folder (the parent of the merge step's folder): what a confined engine sees. */
function dirOf(stepDir: string): string {
  return join(stepDir, '..');
}

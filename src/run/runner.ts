import { constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { checkDeclaredFormat } from '../detect/declared.js';
import type { ConversionEdge, Converter, StepContext } from '../engine/contract.js';
import { type ConversionOptions, parseOptions, pickOptions } from '../engine/options.js';
import { FileconvError } from '../errors/index.js';
import { extensionOf } from '../formats/index.js';
import { buildGraph, type PlannerEngines } from '../plan/graph.js';
import { loadCatalog } from '../plan/index.js';
import {
  assertOptionsApply,
  declaredOptions,
  describeOptionUse,
  planWithOptions,
  routeOf,
} from '../plan/options.js';
import type { Plan, PlannedStep } from '../plan/types.js';
import { assertVersionOpens } from '../plan/versions.js';
import { attachChecks } from './checks.js';
import { engineSemaphore } from './concurrency.js';
import { handToEngine, takeFromEngine } from './engine-files.js';
import { failureText, scrubPaths, stepFailure } from './failure.js';
import { checkPlanOptions } from './option-checks.js';
import { isMalformed, type RepairEnv, repairInput } from './repair.js';
import { decodeCopyAtTheDoor, encodingOption } from './text-door.js';
import type { ConversionJob, ConversionOutputFile, ConversionResult, RunEvent } from './types.js';
import { type EngineWork, meter } from './work.js';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_ENGINE_CONCURRENCY = 2;
/** How long past its timeout an in-process step may run before the runner gives up on it. */
const TIMEOUT_GRACE_MS = 5_000;

export interface RunnerOptions {
  /** Engines to plan with; default: the installed ones from the registry. */
  engines?: PlannerEngines;
  /** Folder the per-conversion temp folders go in; default FILECONV_TMPDIR or the OS temp folder. */
  tempRoot?: string;
}

export function cancelled(): FileconvError {
  return new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
}

/**
 * Plans and runs one conversion: each step in a folder of its own inside a temp folder that is
 * removed whatever happens, engines tried in order with fallbacks, outputs moved into job.outDir.
 */
export async function runConversion(
  job: ConversionJob,
  runner: RunnerOptions = {},
): Promise<ConversionResult> {
  const engines = runner.engines ?? (await loadCatalog()).engines;
  const { plan, rerouted } = planWithOptions(job, engines);
  if (rerouted)
    job.onEvent?.({ kind: 'plan', message: `the options route this conversion through ${routeOf(plan)}` });
  return executePlan(plan, job, { ...runner, engines });
}

/**
 * Runs a given plan (job.from/job.to are not re-planned): validates the options against its
 * steps' families, then works as runConversion does. The self-test runs single steps with it.
 */
export async function executePlan(
  plan: Plan,
  job: Omit<ConversionJob, 'from' | 'to'>,
  runner: RunnerOptions = {},
): Promise<ConversionResult> {
  const engines = runner.engines ?? (await loadCatalog()).engines;
  const graph = buildGraph(engines);
  const converters = new Map(graph.converters.map((c) => [c.name, c]));
  const options = parseOptions(job.options, declaredOptions(graph.converters));
  assertOptionsApply(options, plan);
  await checkPlanOptions(plan, options, engines);
  const signal = job.signal ?? new AbortController().signal;
  if (signal.aborted) throw cancelled();
  const inputStat = await stat(job.input).catch(() => undefined);
  if (!inputStat?.isFile()) throw new FileconvError('FILE_NOT_FOUND');
  // Before any engine runs: a file that is not the kind of thing its declared format is never parsed.
  if (!job.declaredChecked)
    assertVersionOpens(plan, (await checkDeclaredFormat(job.input, plan.from)).version);

  const emit = (kind: string, message: string) => job.onEvent?.({ kind, message } satisfies RunEvent);
  for (const line of describeOptionUse(plan, options)) emit('options', line);
  const report = progressReporter(job, plan.steps.length);
  const root = runner.tempRoot ?? process.env.FILECONV_TMPDIR ?? tmpdir();
  await mkdir(root, { recursive: true });
  const temp = await mkdtemp(join(root, 'fileconv-'));
  try {
    await handToEngine([temp]);
    let current = join(temp, `input.${extensionOf(plan.from)}`);
    // A copy, never a link: an engine writing next to or into its input must not touch the caller's file.
    await copyFile(job.input, current, constants.COPYFILE_FICLONE);
    await decodeCopyAtTheDoor(current, plan.from, emit, encodingOption(options));
    let files: string[] = [];
    for (const [i, step] of plan.steps.entries()) {
      // The step's input becomes the engine user's: a copy keeps its source's mode, which may be 0600.
      await handToEngine([current]);
      emit('step-started', `step ${i + 1}/${plan.steps.length}: ${step.from} to ${step.to}`);
      report(i, 0);
      const env = {
        jobDir: temp,
        converters,
        options,
        signal,
        emit,
        progress: (f: number) => report(i, f),
        work: job.work,
      };
      const limited: RepairEnv['limited'] = (converter, work) => limitedRun(converter, signal, work);
      try {
        files = await runStep(step, current, join(temp, `step-${i + 1}`), env);
      } catch (e) {
        // Only the caller's file can be damaged: later steps read what an engine wrote.
        const repaired =
          i === 0 && isMalformed(e)
            ? await repairInput(current, plan.from, join(temp, 'repair'), { ...env, limited })
            : undefined;
        if (!repaired) throw e;
        current = repaired;
        files = await runStep(step, current, join(temp, `step-${i + 1}-repaired`), env);
      }
      emit('step-done', `step ${i + 1}/${plan.steps.length} done: ${files.length} file(s)`);
      if (i < plan.steps.length - 1) {
        if (files.length !== 1) {
          throw new FileconvError(
            'CONVERT_FAILED',
            `Step ${step.from} to ${step.to} gave ${files.length} files, not one.`,
          );
        }
        current = await withExtension(files[0]!, extensionOf(step.to));
      }
    }
    report(plan.steps.length, 0);
    const delivered = await deliver(files, plan, job);
    await attachChecks(delivered, plan, job.input, options, signal, emit);
    return { plan, files: delivered };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

export function progressReporter(
  job: Pick<ConversionJob, 'onProgress'>,
  steps: number,
): (step: number, fraction: number) => void {
  let last = -1;
  return (step, fraction) => {
    const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
    const percent = Math.min(100, Math.floor(((step + f) / steps) * 100));
    if (percent < last) return;
    last = percent;
    job.onProgress?.({ percent, stage: 'converting', step: Math.min(step + 1, steps), steps });
  };
}

interface StepEnv {
  jobDir: string;
  converters: Map<string, Converter>;
  options: ConversionOptions;
  signal: AbortSignal;
  emit: (kind: string, message: string) => void;
  progress: (fraction: number) => void;
  work?: EngineWork;
}

/**
 * The engines to try for a step, in order. Where a step has both text extraction and OCR engines
 * (pdf to txt), OCR is what the `ocr` option asks for: with it, OCR goes first; without it, OCR is
 * left out, so a PDF without a text layer answers NEEDS_OCR instead of being read slowly and
 * approximately behind the caller's back.
 */
export function enginesToTry(
  step: PlannedStep,
  env: Pick<StepEnv, 'converters' | 'options'>,
): { name: string; converter: Converter; edge: ConversionEdge }[] {
  const all = step.engines.flatMap((name, i) => {
    const converter = env.converters.get(name);
    return converter ? [{ name, converter, edge: step.edges[i] ?? step.edge }] : [];
  });
  const ocr = all.filter((e) => e.edge.family === 'ocr');
  const other = all.filter((e) => e.edge.family !== 'ocr');
  if (ocr.length === 0 || other.length === 0) return all;
  return env.options.ocr ? [...ocr, ...other] : other;
}

/** Runs one step, trying its engines in order; returns its output files. */
async function runStep(step: PlannedStep, input: string, dir: string, env: StepEnv): Promise<string[]> {
  const errors: { engine: string; error: unknown }[] = [];
  const engines = enginesToTry(step, env);
  for (const [n, { name, converter, edge }] of engines.entries()) {
    const tryDir = join(dir, `${n + 1}-${name}`);
    const outDir = join(tryDir, 'out');
    const workDir = join(tryDir, 'work');
    await mkdir(outDir, { recursive: true });
    await mkdir(workDir, { recursive: true });
    await handToEngine([dir, tryDir, outDir, workDir]);
    const release = await engineSemaphore(name, converter.concurrency ?? DEFAULT_ENGINE_CONCURRENCY).acquire(
      env.signal,
    );
    env.emit('engine-try', `${name}: ${step.from} to ${step.to}`);
    const started = performance.now();
    try {
      const files = await runWithLimits(
        converter,
        { edge, input, outDir, options: pickOptions(env.options, step.options) },
        {
          workDir,
          jobDir: env.jobDir,
          signal: env.signal,
          timeoutMs: converter.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          background: converter.background,
          progress: env.progress,
          log: (m) => env.emit('log', `${name}: ${scrubPaths(m)}`),
        },
      );
      return files;
    } catch (error) {
      if (env.signal.aborted) throw cancelled();
      errors.push({ engine: name, error });
      env.emit('engine-failed', `${name} failed: ${failureText(error)}`);
      const next = engines[n + 1];
      if (next) env.emit('fallback', `trying ${next.name} for ${step.from} to ${step.to}`);
    } finally {
      release();
      meter(env.work, started);
    }
  }
  throw stepFailure(errors, step.from, step.to);
}

/** Runs an engine's work in its concurrency lane, within its time limit and the job's signal. */
async function limitedRun<T>(
  converter: Converter,
  signal: AbortSignal,
  work: (signal: AbortSignal, timeoutMs: number) => Promise<T>,
): Promise<T> {
  const timeoutMs = converter.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const release = await engineSemaphore(
    converter.name,
    converter.concurrency ?? DEFAULT_ENGINE_CONCURRENCY,
  ).acquire(signal);
  try {
    return await withTimeLimit(converter, signal, timeoutMs, (s) => work(s, timeoutMs));
  } finally {
    release();
  }
}

/**
 * Runs the converter with the job's abort signal and the engine's time limit. Engines that spawn
 * processes are killed by runProcess; an in-process engine that ignores the signal is given up on
 * a little after its limit.
 */
async function runWithLimits(
  converter: Converter,
  request: Parameters<Converter['run']>[0],
  base: Omit<StepContext, 'signal'> & { signal: AbortSignal },
): Promise<string[]> {
  const result = await withTimeLimit(converter, base.signal, base.timeoutMs, (signal) =>
    converter.run(request, { ...base, signal }),
  );
  const files = result.files;
  if (!Array.isArray(files) || files.length === 0) {
    throw new FileconvError('CONVERT_FAILED', `${converter.name} wrote no output.`);
  }
  for (const f of files) {
    const s = await stat(f).catch(() => undefined);
    if (!s?.isFile())
      throw new FileconvError('CONVERT_FAILED', `${converter.name} did not write ${basename(f)}.`);
  }
  return files;
}

/**
 * Runs `work` with a signal that aborts with the job's and past the engine's time limit (and a
 * little grace, for engines that ignore it); a cancelled job or an engine past its limit throws.
 */
export async function withTimeLimit<T>(
  converter: Converter,
  jobSignal: AbortSignal,
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  jobSignal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new FileconvError(
          'CONVERT_FAILED',
          `${converter.name} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`,
        ),
      );
    }, timeoutMs + TIMEOUT_GRACE_MS);
    controller.signal.addEventListener('abort', () => reject(cancelled()), { once: true });
  });
  guard.catch(() => {});
  try {
    return await Promise.race([work(controller.signal), guard]);
  } finally {
    clearTimeout(timer);
    jobSignal.removeEventListener('abort', onAbort);
  }
}

/** Moves the outputs into job.outDir: `<base>.<ext>`, or `<base>-<n>.<ext>` for pages. */
async function deliver(
  files: string[],
  plan: Plan,
  job: Omit<ConversionJob, 'from' | 'to'>,
): Promise<ConversionOutputFile[]> {
  await mkdir(job.outDir, { recursive: true });
  const base = job.baseName ?? 'output';
  const ext = extensionOf(plan.to);
  const many = files.length > 1;
  const out: ConversionOutputFile[] = [];
  for (const [i, file] of files.entries()) {
    const path = join(job.outDir, many ? `${base}-${i + 1}.${ext}` : `${base}.${ext}`);
    await takeFromEngine(file);
    await moveFile(file, path);
    out.push({ name: many ? `${plan.to}-${i + 1}` : plan.to, path, format: plan.to });
  }
  return out;
}

/** The file under a name ending in `.ext` (engines downstream may go by the extension). */
async function withExtension(file: string, ext: string): Promise<string> {
  if (extname(file).toLowerCase() === `.${ext}`) return file;
  const named = join(dirname(file), `step-output.${ext}`);
  await rename(file, named);
  return named;
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(from, to);
    await unlink(from);
  }
}

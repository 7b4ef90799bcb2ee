import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { detect } from '../detect/index.js';
import type { EngineStatus } from '../engine/registry.js';
import { type FormatId, getFormat } from '../formats/index.js';
import { buildCatalog, loadCatalog } from '../plan/index.js';
import type { Plan } from '../plan/types.js';
import { mapLimit } from '../run/concurrency.js';
import { makeSamples } from './samples.js';
import { StepCache } from './steps.js';

export interface PairResult {
  key: string;
  /** Engines that ran each step, `libreoffice > poppler`. */
  engines: string;
  ok: boolean;
  ms: number;
  reason?: string;
}

export interface SelftestReport {
  results: PairResult[];
  passed: number;
  failed: number;
  wallMs: number;
}

export interface SelftestOptions {
  /** Comma-separated families (`document`, `ocr`) or keys (`docx-pdf`) to test; default all. */
  only?: string;
  /** Pairs converted at once (default 2). */
  concurrency?: number;
  /** Called as each pair finishes (for streaming a table). */
  onResult?: (result: PairResult) => void;
  engines?: EngineStatus[];
  /** Stops the run (engines killed, temp folder removed). */
  signal?: AbortSignal;
}

/** Whether a plan is selected by an `--only` filter. */
export function selected(plan: Plan, only: string | undefined): boolean {
  if (!only) return true;
  const wanted = only.split(',').map((s) => s.trim().toLowerCase());
  return wanted.includes(plan.key) || wanted.includes(plan.family);
}

/** The format detection must report for an output of `to` (PDF/A is detected as pdf). */
export function expectedDetection(to: FormatId): FormatId {
  return getFormat(to)?.detectsAs ?? to;
}

/** Whether detection's answer is right for an output of `to`. */
export function detectionAccepts(detected: FormatId | undefined, to: FormatId): boolean {
  if (detected === expectedDetection(to)) return true;
  // Text with no markup at all is valid markdown, reStructuredText or LaTeX source; bytes cannot
  // tell it from plain text, so plain text passes for those targets. Source code written as plain
  // text is still the program, which detection rightly names.
  if (to === 'txt' && getFormat(detected ?? '')?.family === 'code') return true;
  return detected === 'txt' && getFormat(to)?.family === 'text';
}

async function checkOutputs(files: string[], to: FormatId): Promise<string | undefined> {
  for (const file of files) {
    const report = await detect(file, { filename: basename(file) });
    if (!detectionAccepts(report.detected, to)) {
      return `output detected as ${report.detected ?? 'nothing'}, not ${expectedDetection(to)}`;
    }
  }
  return undefined;
}

/**
 * Converts a generated sample for every catalog pair and checks each output with the project's
 * own detection. Steps shared by several pairs run once (see StepCache).
 */
export async function runSelftest(options: SelftestOptions = {}): Promise<SelftestReport> {
  const started = Date.now();
  const catalog = options.engines ? undefined : await loadCatalog();
  const engines = options.engines ?? catalog!.engines;
  const plans = (catalog?.plans ?? buildCatalog(engines)).filter((p) => selected(p, options.only));
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-selftest-'));
  try {
    const samples = await makeSamples(
      join(dir, 'samples'),
      new Set(plans.map((p) => p.from)),
      engines,
      options.signal,
    );
    const cache = new StepCache(join(dir, 'steps'), engines, options.signal);
    // Same sample, then same first engine, next to each other: shared prefixes hit the cache.
    const ordered = [...plans].sort(
      (a, b) =>
        a.from.localeCompare(b.from) ||
        a.steps[0]!.engines[0]!.localeCompare(b.steps[0]!.engines[0]!) ||
        a.steps.length - b.steps.length ||
        a.key.localeCompare(b.key),
    );
    const results = await mapLimit(ordered, options.concurrency ?? 2, async (plan) => {
      const result = await testPair(
        plan,
        samples.files.get(plan.from),
        samples.missing.get(plan.from),
        cache,
      );
      options.onResult?.(result);
      return result;
    });
    results.sort((a, b) => a.key.localeCompare(b.key));
    const passed = results.filter((r) => r.ok).length;
    return { results, passed, failed: results.length - passed, wallMs: Date.now() - started };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function testPair(
  plan: Plan,
  sample: string | undefined,
  missing: string | undefined,
  cache: StepCache,
): Promise<PairResult> {
  const base = { key: plan.key, engines: plan.steps.map((s) => s.engines[0]).join(' > ') };
  if (!sample) return { ...base, ok: false, ms: 0, reason: missing ?? `no ${plan.from} sample` };
  const t0 = Date.now();
  try {
    const { files, engines } = await cache.runPlan(plan, sample);
    const reason = await checkOutputs(files, plan.to);
    return { ...base, engines: engines.join(' > '), ok: !reason, ms: Date.now() - t0, reason };
  } catch (e) {
    const code = (e as { code?: string }).code;
    return { ...base, ok: false, ms: Date.now() - t0, reason: `${code ?? 'ERROR'}: ${(e as Error).message}` };
  }
}

/** One table row of a pair's result. */
export function formatRow(r: PairResult): string {
  const ms = `${r.ms} ms`.padStart(9);
  return `${r.key.padEnd(16)} ${r.engines.padEnd(28)} ${r.ok ? 'ok  ' : 'FAIL'} ${ms}${r.reason ? `  ${r.reason}` : ''}`;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { ConversionEdge, Converter, StepContext, StepResult } from '../../src/engine/contract.js';
import type { ConversionOptions } from '../../src/engine/options.js';
import { FileconvError } from '../../src/errors/index.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp folder removed after the current test. */
export function tempDir(prefix = 'fileconv-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A StepContext with its own workDir, collecting log lines and progress. */
export function stepContext(
  timeoutMs = 120_000,
): StepContext & { logs: string[]; progressSeen: number[]; abort(): void } {
  const controller = new AbortController();
  const logs: string[] = [];
  const progressSeen: number[] = [];
  return {
    signal: controller.signal,
    timeoutMs,
    workDir: tempDir('fileconv-work-'),
    progress: (f) => progressSeen.push(f),
    log: (m) => logs.push(m),
    logs,
    progressSeen,
    abort: () => controller.abort(),
  };
}

/** Runs one step of a converter on `input`, for the edge from->to it declares. */
export async function runStep(
  converter: Converter,
  from: string,
  to: string,
  input: string,
  options: ConversionOptions = {},
): Promise<StepResult & { outDir: string }> {
  const edge: ConversionEdge | undefined = converter.edges.find((e) => e.from === from && e.to === to);
  if (!edge) throw new Error(`${converter.name} declares no edge ${from}-${to}`);
  const outDir = tempDir('fileconv-out-');
  const result = await converter.run({ edge, input, outDir, options }, stepContext());
  return { ...result, outDir };
}

/** Awaits a promise that must reject with a FileconvError of `code`; returns that error. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<FileconvError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileconvError);
  expect((error as FileconvError).code).toBe(code);
  return error as FileconvError;
}

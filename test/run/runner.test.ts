import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Converter } from '../../src/engine/contract.js';
import { defineOption, int } from '../../src/engine/option-kit.js';
import { pages, quality } from '../../src/engine/shared-options.js';
import { FileconvError } from '../../src/errors/index.js';
import { runConversion } from '../../src/run/runner.js';
import type { ConversionJob, RunEvent } from '../../src/run/types.js';
import { tempDir } from '../helpers/step.js';
import {
  crashEngine,
  detailError,
  failingEngine,
  splitEngine,
  upperEngine,
  withFixtureBin,
} from './engines.js';

function setup(text = 'hello\nworld\n') {
  const dir = tempDir();
  const input = join(dir, 'in.txt');
  writeFileSync(input, text);
  const tempRoot = join(dir, 'tmp');
  mkdirSync(tempRoot);
  return { dir, input, tempRoot, outDir: join(dir, 'out') };
}

async function run(
  engines: Converter[],
  job: Partial<ConversionJob> & { tempRoot: string; input: string; outDir: string },
) {
  const events: RunEvent[] = [];
  const percents: number[] = [];
  const { tempRoot, ...rest } = job;
  const result = runConversion(
    {
      from: 'txt',
      to: 'md',
      ...rest,
      onEvent: (e) => events.push(e),
      onProgress: (p) => percents.push(p.percent),
    },
    { engines, tempRoot },
  );
  return { result, events, percents };
}

async function failure(p: Promise<unknown>): Promise<FileconvError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FileconvError);
  return e as FileconvError;
}

let restorePath: (() => void) | undefined;
afterEach(() => restorePath?.());

describe('runConversion', () => {
  it('runs a one-step plan and names the output after the target', async () => {
    const s = setup();
    const { result, events, percents } = await run([upperEngine('upper')], { ...s, baseName: 'report' });
    const r = await result;
    expect(r.plan.key).toBe('txt-md');
    // Upper-cased, the words are still the words: checks fold case.
    const checks = { words: 2, words_kept: 1 };
    expect(r.files).toEqual([{ name: 'md', path: join(s.outDir, 'report.md'), format: 'md', checks }]);
    expect(readFileSync(join(s.outDir, 'report.md'), 'utf8')).toBe('HELLO\nWORLD\n');
    expect(events.map((e) => e.kind)).toEqual([
      'encoding',
      'step-started',
      'engine-try',
      'step-done',
      'checks',
    ]);
    expect(events.at(-1)?.message).toBe('the md has 100% of the words');
    expect(percents[percents.length - 1]).toBe(100);
    expect(readdirSync(s.tempRoot)).toEqual([]);
    // the caller's input is untouched
    expect(readFileSync(s.input, 'utf8')).toBe('hello\nworld\n');
  });

  it('chains steps and names per-page outputs base-1, base-2 with artifacts to-1, to-2', async () => {
    const s = setup('one\ntwo\nthree\n');
    const engines = [upperEngine('upper'), splitEngine('split', 'md', 'csv')];
    const { result } = await run(engines, { ...s, to: 'csv', baseName: 'doc' });
    const r = await result;
    expect(r.plan.steps.map((st) => st.engines[0])).toEqual(['upper', 'split']);
    expect(r.files.map((f) => f.name)).toEqual(['csv-1', 'csv-2', 'csv-3']);
    expect(readdirSync(s.outDir).sort()).toEqual(['doc-1.csv', 'doc-2.csv', 'doc-3.csv']);
    expect(readFileSync(join(s.outDir, 'doc-2.csv'), 'utf8')).toBe('TWO');
    expect(readdirSync(s.tempRoot)).toEqual([]);
  });

  it('falls back to the next engine when the first fails, and reports both tries', async () => {
    const s = setup();
    const engines = [failingEngine('broken', () => new Error('boom at /tmp/x/y.txt')), upperEngine('upper')];
    // same cost and lossiness: file order puts `broken` first
    const { result, events } = await run(engines, s);
    const r = await result;
    expect(r.plan.steps[0]!.engines).toEqual(['broken', 'upper']);
    expect(readFileSync(r.files[0]!.path, 'utf8')).toBe('HELLO\nWORLD\n');
    expect(events.map((e) => e.kind)).toEqual([
      'encoding',
      'step-started',
      'engine-try',
      'engine-failed',
      'fallback',
      'engine-try',
      'step-done',
      'checks',
    ]);
    expect(events.filter((e) => e.kind === 'engine-try').map((e) => e.message.split(':')[0])).toEqual([
      'broken',
      'upper',
    ]);
    expect(events.find((e) => e.kind === 'engine-failed')!.message).not.toContain('/tmp/x');
  });

  it('reports the most specific detail code when every engine fails', async () => {
    const s = setup();
    const engines = [
      failingEngine('a', detailError('MALFORMED_DOCUMENT')),
      failingEngine('b', detailError('ENCRYPTED_DOCUMENT')),
      failingEngine('c', () => new Error('plain')),
    ];
    const e = await failure((await run(engines, s)).result);
    expect(e.code).toBe('ENCRYPTED_DOCUMENT');
    expect(readdirSync(s.tempRoot)).toEqual([]);
    expect(() => readdirSync(s.outDir)).toThrow();
  });

  it('turns an engine crash into CONVERT_FAILED without local paths, and cleans up', async () => {
    restorePath = withFixtureBin();
    const s = setup();
    const e = await failure((await run([crashEngine('crasher')], s)).result);
    expect(e.code).toBe('CONVERT_FAILED');
    expect(e.message).toContain('crasher');
    expect(e.message).not.toMatch(/\/[a-z]+\//);
    expect(readdirSync(s.tempRoot)).toEqual([]);
  });

  it('refuses pairs outside the catalog', async () => {
    const s = setup();
    const e = await failure((await run([upperEngine('upper')], { ...s, to: 'pdf' })).result);
    expect(e.code).toBe('UNSUPPORTED_CONVERSION');
  });

  it("validates options against what the plan's engines declare, and says which step took them", async () => {
    const s = setup();
    const seen: unknown[] = [];
    const doc = upperEngine('upper', [{ from: 'txt', to: 'md', family: 'document', lossy: false, cost: 5 }]);
    const recording: Converter = {
      ...doc,
      options: { quality, pages },
      run: (req, ctx) => {
        seen.push(req.options);
        return doc.run(req, ctx);
      },
    };
    // Declares crf, but takes no step of txt to md: the option exists, and does not apply here.
    const video: Converter = {
      ...upperEngine('video', [{ from: 'mp4', to: 'webm', family: 'video', lossy: true, cost: 5 }]),
      options: { crf: defineOption(int(0, 51), 'video constant rate factor') },
    };
    const engines = [recording, video];
    const unknown = await failure((await run(engines, { ...s, options: { nonsense: 1 } })).result);
    expect(unknown.code).toBe('INVALID_REQUEST');
    expect(unknown.message).toBe('unknown option nonsense');
    const range = await failure((await run(engines, { ...s, options: { quality: 500 } })).result);
    expect(range.code).toBe('INVALID_REQUEST');
    expect(range.message).toBe('option quality must be between 1 and 100');
    const elsewhere = await failure((await run(engines, { ...s, options: { crf: 20 } })).result);
    expect(elsewhere.code).toBe('INVALID_REQUEST');
    expect(elsewhere.message).toBe('option crf does not apply to this conversion (txt -(upper)-> md)');
    expect(seen).toEqual([]);
    const done = await run(engines, { ...s, options: { quality: '80', pages: '1-2' } });
    await done.result;
    expect(seen).toEqual([{ quality: 80, pages: '1-2' }]);
    expect(done.events.filter((e) => e.kind === 'options').map((e) => e.message)).toEqual([
      'step 1 (upper, txt to md) takes quality, pages',
    ]);
  });

  it('refuses two engines that declare one option name with different specs', async () => {
    const s = setup();
    const a: Converter = { ...upperEngine('a'), options: { quality } };
    const b: Converter = {
      ...upperEngine('b', [{ from: 'txt', to: 'html', family: 'text', lossy: false, cost: 5 }]),
      options: { quality: defineOption(int(0, 10), 'another quality') },
    };
    await expect((await run([a, b], { ...s, options: { quality: 5 } })).result).rejects.toThrow(
      /option quality is declared differently by a and b/,
    );
  });

  it('reports a missing input as FILE_NOT_FOUND', async () => {
    const s = setup();
    const e = await failure(
      (await run([upperEngine('upper')], { ...s, input: join(s.dir, 'nope.txt') })).result,
    );
    expect(e.code).toBe('FILE_NOT_FOUND');
  });
});

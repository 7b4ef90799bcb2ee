import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert, FileconvError } from '../../src/index.js';
import {
  formFields,
  type MergeSample,
  mergeSamples,
  outline,
  pageText,
  pdfPages,
  qpdfCheck,
  startPages,
} from '../helpers/merge-inputs.js';
import { removeDir, tempDir } from '../server/helpers.js';

let dir: string;
let samples: MergeSample[];
beforeAll(() => {
  dir = tempDir('fileconv-lib-merge-');
  samples = mergeSamples(dir);
});
afterAll(() => removeDir(dir));

describe('convert([paths], { to: "pdf" })', () => {
  it('merges the files in order into one PDF', async () => {
    const output = join(dir, 'bundle.pdf');
    const result = await convert(
      samples.map((s) => s.path),
      { to: 'pdf', output },
    );
    expect(result).toMatchObject({ key: 'merge-pdf', outputs: [output] });
    expect(pdfPages(output)).toBe(samples.reduce((n, s) => n + s.pages, 0));
    const starts = startPages(samples);
    samples.forEach((s, i) => {
      if (s.words) expect(pageText(output, starts[i]!)).toContain(s.words);
    });
    expect(outline(output).map((i) => [i.title, i.page])).toEqual(
      samples.map((s, i) => [s.name.replace(/\.[^.]+$/, ''), starts[i]]),
    );
    expect(formFields(output)).toHaveLength(2);
    expect(qpdfCheck(output)).toContain('No syntax or stream encoding errors');
  }, 240_000);

  it('refuses more inputs than a merge takes', async () => {
    const many = Array.from({ length: 101 }, () => samples[0]!.path);
    await expect(convert(many, { to: 'pdf', output: join(dir, 'x.pdf') })).rejects.toThrow(FileconvError);
    await expect(convert(many, { to: 'pdf', output: join(dir, 'x.pdf') })).rejects.toThrow(/at most 100/);
  });
});

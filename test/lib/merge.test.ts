import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, FileconvError } from '../../src/index.js';
import { expectMerged, useMergeSamples } from '../helpers/merge-inputs.js';

const given = useMergeSamples('fileconv-lib-merge-');

describe('convert([paths], { to: "pdf" })', () => {
  it('merges the files in order into one PDF', async () => {
    const samples = given.samples();
    const output = join(given.dir(), 'bundle.pdf');
    const result = await convert(
      samples.map((s) => s.path),
      { to: 'pdf', output },
    );
    expect(result).toMatchObject({ key: 'merge-pdf', outputs: [output] });
    expectMerged(output, samples);
  }, 240_000);

  it('refuses more inputs than a merge takes', async () => {
    const many = Array.from({ length: 101 }, () => given.samples()[0]!.path);
    const output = join(given.dir(), 'x.pdf');
    await expect(convert(many, { to: 'pdf', output })).rejects.toThrow(FileconvError);
    await expect(convert(many, { to: 'pdf', output })).rejects.toThrow(/at most 100/);
  });
});

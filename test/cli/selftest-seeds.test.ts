import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { detect, detectFile } from '../../src/detect/index.js';
import { FORMATS } from '../../src/formats/index.js';
import { findBinary } from '../../src/run/binary.js';
import { detectionAccepts } from '../../src/selftest/index.js';
import { tinyPdf, writeSeeds } from '../../src/selftest/seeds.js';
import { tempDir } from '../helpers/step.js';

describe('self-test seeds', () => {
  it('writes seeds that detection recognises as what they claim to be', async () => {
    const seeds = await writeSeeds(tempDir());
    expect([...seeds.keys()]).toEqual(
      expect.arrayContaining([
        'txt',
        'md',
        'html',
        'csv',
        'json',
        'svg',
        'pdf',
        'png',
        'odp',
        'psd',
        'sqlite',
      ]),
    );
    for (const [id, path] of seeds) {
      const report = await detect(path, { filename: basename(path) });
      expect(report.detected, basename(path)).toBe(id);
    }
  });

  it('writes a seed of every source code format that its content alone names', async () => {
    const seeds = await writeSeeds(tempDir());
    const code = FORMATS.filter((f) => f.family === 'code');
    for (const f of code) {
      expect(seeds.has(f.id), f.id).toBe(true);
      expect((await detectFile(seeds.get(f.id)!)).id, f.id).toBe(f.id);
    }
  });

  const pdftotext = findBinary(['pdftotext']);
  // poppler-utils is one of the engines `npm run setup` installs.
  it.skipIf(!pdftotext)('writes a PDF whose text layer pdftotext can read', async () => {
    const dir = tempDir();
    const file = join(dir, 'seed.pdf');
    await writeFile(file, tinyPdf('Sample words here'));
    const r = await execa(pdftotext as string, [file, '-']);
    expect(r.stdout.trim()).toBe('Sample words here');
  });

  it('accepts plain text only for text-family targets', () => {
    expect(detectionAccepts('pdf', 'pdfa')).toBe(true);
    expect(detectionAccepts('txt', 'md')).toBe(true);
    expect(detectionAccepts('txt', 'csv')).toBe(false);
    expect(detectionAccepts('bin', 'tiff')).toBe(false);
    // Source code written as plain text is still the program.
    expect(detectionAccepts('py', 'txt')).toBe(true);
    expect(detectionAccepts('py', 'html')).toBe(false);
  });
});

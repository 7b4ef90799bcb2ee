import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { gradientPng } from '../converters/_image-samples.js';
import {
  expectMerged,
  type MergeSample,
  pageSizes,
  pageText,
  pdfPages,
  useMergeSamples,
} from '../helpers/merge-inputs.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const fileconv = (args: string[], cwd: string) =>
  execa('node', [BIN, ...args], { cwd, reject: false, stdin: 'ignore' });

const given = useMergeSamples('fileconv-cli-merge-');
let dir: string;
let samples: MergeSample[];
beforeAll(() => {
  dir = given.dir();
  samples = given.samples();
});

describe('fileconv convert --merge', () => {
  it('joins a PDF, a form, a DOCX, a PNG, Markdown and a form into one PDF with -o', async () => {
    const r = await fileconv(
      ['convert', ...samples.map((s) => s.name), '--merge', '-o', 'all.pdf', '--json'],
      dir,
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const line = JSON.parse(r.stdout.trim());
    const pdf = join(dir, 'all.pdf');
    expect(line).toMatchObject({ ok: true, key: 'merge-pdf', outputs: [pdf] });
    expectMerged(pdf, samples);
  }, 240_000);

  it('names the input that fails, with exit code 1', async () => {
    writeFileSync(join(dir, 'broken.pdf'), Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(500, 65)]));
    const r = await fileconv(
      ['convert', 'chapters.pdf', 'broken.pdf', '--merge', '-o', 'bad.pdf', '--json'],
      dir,
    );
    expect(r.exitCode).toBe(1);
    const line = JSON.parse(r.stdout.trim());
    expect(line.ok).toBe(false);
    expect(line.error.message).toMatch(/^Input 2 \(broken\.pdf\)/);
    expect(existsSync(join(dir, 'bad.pdf'))).toBe(false);
  }, 120_000);
});

describe('fileconv convert --merge with a paper', () => {
  it('fits every picture to the paper and keeps the pages of a PDF as they are', async () => {
    await gradientPng(join(dir, 'tall.png'), 30, 60);
    await gradientPng(join(dir, 'square.png'), 40, 40);
    const own = pageSizes(join(dir, 'chapters.pdf'));
    const r = await fileconv(
      [
        'convert',
        'tall.png',
        'chapters.pdf',
        'square.png',
        '--merge',
        '--paper',
        'A5',
        '-o',
        'a5.pdf',
        '--json',
      ],
      dir,
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const a5: [number, number] = [420, 595];
    expect(pageSizes(join(dir, 'a5.pdf'))).toEqual([a5, ...own, a5]);
  }, 120_000);

  it('refuses a paper no input of the merge takes (exit 2)', async () => {
    const r = await fileconv(
      ['convert', 'chapters.pdf', 'form-a.pdf', '--merge', '-O', 'paper=A4', '-o', 'none.pdf', '--json'],
      dir,
    );
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout.trim()).error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/^option paper applies to no input of this merge/),
    });
    expect(existsSync(join(dir, 'none.pdf'))).toBe(false);
  }, 60_000);
});

describe('standard input and output', () => {
  it('merges a file and standard input, writing the PDF to standard output', async () => {
    const pdf = join(dir, 'from-stdout.pdf');
    const r = await execa('node', [BIN, 'convert', 'chapters.pdf', '-', '--merge', '-o', '-'], {
      cwd: dir,
      reject: false,
      inputFile: join(dir, 'notes.md'),
      stdout: { file: pdf },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ ok: true, key: 'merge-pdf' });
    expect(pdfPages(pdf)).toBe(3);
    expect(pageText(pdf, 3)).toContain('Echo notes');
  }, 120_000);

  it('converts standard input to standard output, and refuses -o - for several outputs', async () => {
    const out = join(dir, 'rotated.pdf');
    const r = await execa('node', [BIN, 'convert', '-', '--to', 'pdf', '--rotate', '90', '-o', '-'], {
      cwd: dir,
      reject: false,
      inputFile: join(dir, 'chapters.pdf'),
      stdout: { file: out },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(pdfPages(out)).toBe(2);
    const split = await execa('node', [BIN, 'convert', '-', '--to', 'pdf', '-O', 'split=1', '-o', '-'], {
      cwd: dir,
      reject: false,
      inputFile: join(dir, 'chapters.pdf'),
    });
    expect(split.exitCode).toBe(2);
    expect(split.stdout).toBe('');
    expect(split.stderr).toMatch(/wrote 2 files; give -o FOLDER/);
  }, 120_000);
});

describe('fileconv convert with several inputs and no --merge', () => {
  it('converts each on its own, lists the one that failed and exits 4', async () => {
    await gradientPng(join(dir, 'one.png'));
    await gradientPng(join(dir, 'two.png'), 30, 20);
    // A PNG signature and a header chunk cut off: detected as PNG, decoded by no engine.
    writeFileSync(
      join(dir, 'bad.png'),
      Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(40, 7)]),
    );
    const r = await fileconv(['convert', 'one.png', 'two.png', 'bad.png', '--to', 'webp', '--json'], dir);
    expect(r.exitCode).toBe(4);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const byInput = Object.fromEntries(lines.map((l) => [l.input, l]));
    expect(byInput['one.png']).toMatchObject({ ok: true, outputs: [join(dir, 'one.webp')] });
    expect(byInput['two.png']).toMatchObject({ ok: true, outputs: [join(dir, 'two.webp')] });
    expect(byInput['bad.png']).toMatchObject({ ok: false });
    expect(existsSync(join(dir, 'one.webp')) && existsSync(join(dir, 'two.webp'))).toBe(true);
  }, 120_000);
});

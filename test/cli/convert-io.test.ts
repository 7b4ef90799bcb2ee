import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputBaseName, parseOptionPairs, resolveTarget, UsageError } from '../../src/cli/convert-io.js';
import { batchExitCode, EXIT_CODE, exitCodeOf } from '../../src/errors/exit-codes.js';
import { ERROR_CODES } from '../../src/errors/index.js';
import { tempDir } from '../helpers/step.js';

describe('resolveTarget', () => {
  it('reads `IN OUT` as an output file whose extension names the target', () => {
    const dir = tempDir();
    const out = join(dir, 'report.pdf');
    expect(resolveTarget(['in.docx', out], {})).toEqual({
      inputs: ['in.docx'],
      to: 'pdf',
      outFile: out,
      outDir: dir,
    });
  });

  it('treats two existing files as two inputs, which then need --to', () => {
    const dir = tempDir();
    const a = join(dir, 'a.docx');
    const b = join(dir, 'b.pdf');
    writeFileSync(a, 'x');
    writeFileSync(b, 'x');
    expect(() => resolveTarget([a, b], {})).toThrow(UsageError);
    expect(resolveTarget([a, b], { to: 'odt' }).inputs).toEqual([a, b]);
  });

  it('does not take a URL or an unknown extension as the output', () => {
    expect(() => resolveTarget(['in.docx', 'https://example.org/x.pdf'], {})).toThrow(UsageError);
    expect(() => resolveTarget(['in.docx', 'out.nope'], {})).toThrow(UsageError);
  });

  it('takes -o as a folder when it is one, ends with a slash, or there are several inputs', () => {
    const dir = tempDir();
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(resolveTarget(['a.md'], { to: 'html', output: sub }).outDir).toBe(sub);
    expect(resolveTarget(['a.md'], { to: 'html', output: `${dir}/new/` })).toEqual({
      inputs: ['a.md'],
      to: 'html',
      outDir: join(dir, 'new'),
    });
    expect(resolveTarget(['a.md', 'b.md'], { to: 'html', output: join(dir, 'x') }).outDir).toBe(
      join(dir, 'x'),
    );
    expect(resolveTarget(['a.md'], { to: 'html', output: join(dir, 'page.html') }).outFile).toBe(
      join(dir, 'page.html'),
    );
  });
});

describe('helpers', () => {
  it('names outputs after the output file or the input', () => {
    expect(outputBaseName('/x/report.pdf', 'in.docx')).toBe('report');
    expect(outputBaseName('/x/report', 'in.docx')).toBe('report');
    expect(outputBaseName(undefined, 'notes.final.md')).toBe('notes.final');
  });

  it('parses -O pairs and refuses ones without =', () => {
    expect(parseOptionPairs(['quality=80', 'pages = 1-2'])).toEqual({ quality: '80', pages: '1-2' });
    expect(() => parseOptionPairs(['quality'])).toThrow(UsageError);
  });

  it('maps batch outcomes to exit codes', () => {
    expect(batchExitCode([{ ok: true }])).toBe(0);
    expect(batchExitCode([{ ok: false, error: { code: 'CONVERT_FAILED' } }])).toBe(1);
    expect(batchExitCode([{ ok: false, error: { code: 'INVALID_REQUEST' } }])).toBe(2);
    expect(batchExitCode([{ ok: false, error: { code: 'UNSUPPORTED_CONVERSION' } }])).toBe(3);
    expect(batchExitCode([{ ok: true }, { ok: false, error: { code: 'CONVERT_FAILED' } }])).toBe(4);
    const mixed = [
      { ok: false, error: { code: 'INVALID_REQUEST' } },
      { ok: false, error: { code: 'UNSUPPORTED_CONVERSION' } },
    ];
    expect(batchExitCode(mixed)).toBe(1);
  });

  it('gives every error code an exit code, and 1 to text that is no code', () => {
    expect(Object.keys(EXIT_CODE).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(exitCodeOf('FORMAT_MISMATCH')).toBe(1);
    expect(exitCodeOf('toString')).toBe(1);
    expect(exitCodeOf('')).toBe(1);
  });
});

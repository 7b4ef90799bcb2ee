import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { gradientPng, textPdf } from '../converters/_image-samples.js';
import { tempDir } from '../helpers/step.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));

function fileconv(args: string[], cwd: string) {
  return execa('node', [BIN, ...args], { cwd, reject: false, stdin: 'ignore' });
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('fileconv convert', () => {
  it('converts with the in-process data engine and prints one JSON line per input', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'items.csv'), 'name,qty\napple,3\npear,5\n');
    const r = await fileconv(['convert', 'items.csv', '--to', 'json', '--json'], dir);
    expect(r.exitCode).toBe(0);
    const [line] = jsonLines(r.stdout);
    expect(line).toMatchObject({
      input: 'items.csv',
      ok: true,
      key: 'csv-json',
      outputs: [join(dir, 'items.json')],
    });
    expect(JSON.parse(readFileSync(join(dir, 'items.json'), 'utf8'))).toEqual([
      { name: 'apple', qty: 3 },
      { name: 'pear', qty: 5 },
    ]);
  });

  it('takes the target from the output file in `convert IN OUT`', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'conf.json'), '{"a": 1, "list": [1, 2]}');
    const r = await fileconv(['convert', 'conf.json', 'out/settings.yaml'], dir);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'out', 'settings.yaml'), 'utf8')).toMatch(
      /^a: 1\nlist:\n\s+- 1\n\s+- 2\n$/,
    );
  });

  it('converts a batch into a folder and exits 4 when some inputs fail', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.csv'), 'x,y\n1,2\n');
    writeFileSync(join(dir, 'b.csv'), 'x,y\n3,4\n');
    const r = await fileconv(
      ['convert', 'a.csv', 'b.csv', 'missing.csv', '--to', 'yaml', '-o', 'out', '--concurrency', '2'],
      dir,
    );
    expect(r.exitCode).toBe(4);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => [l.input, l.ok])).toEqual(
      expect.arrayContaining([
        ['a.csv', true],
        ['b.csv', true],
        ['missing.csv', false],
      ]),
    );
    expect(lines.find((l) => l.input === 'missing.csv')!.error).toMatchObject({ code: 'FILE_NOT_FOUND' });
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['a.yaml', 'b.yaml']);
  });

  it('stamps a picture with --stamp-image; a picture that is not one exits 2', {
    timeout: 60_000,
  }, async () => {
    const dir = tempDir();
    await textPdf(dir, ['One', 'Two'], 'report.pdf');
    await gradientPng(join(dir, 'logo.png'), 40, 20, true);
    const r = await fileconv(
      ['convert', 'report.pdf', '--to', 'pdf', '--stamp-image', 'logo.png', '-o', 'stamped.pdf', '--json'],
      dir,
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const rows = execFileSync('pdfimages', ['-list', join(dir, 'stamped.pdf')], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c[2] === 'image');
    expect(rows.map((c) => c[0])).toEqual(['1', '2']);

    writeFileSync(join(dir, 'fake.png'), 'just text');
    const bad = await fileconv(
      ['convert', 'report.pdf', '--to', 'pdf', '--stamp-image', 'fake.png', '--json'],
      dir,
    );
    expect(bad.exitCode).toBe(2);
    expect(jsonLines(bad.stdout)[0]).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });

  it('exits 2 on usage errors and bad options, 3 on an unsupported pair', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.csv'), 'x,y\n1,2\n');
    expect((await fileconv(['convert', 'a.csv'], dir)).exitCode).toBe(2);
    expect((await fileconv(['convert', 'a.csv', '--to', 'nosuchformat'], dir)).exitCode).toBe(2);
    expect((await fileconv(['convert', 'a.csv', '--bogus-flag', '--to', 'json'], dir)).exitCode).toBe(2);
    const badOption = await fileconv(['convert', 'a.csv', '--to', 'json', '-O', 'nonsense=1'], dir);
    expect(badOption.exitCode).toBe(2);
    expect(jsonLines(badOption.stdout)[0]!.error).toMatchObject({ code: 'INVALID_REQUEST' });
    const unsupported = await fileconv(['convert', 'a.csv', '--to', '7z'], dir);
    expect(unsupported.exitCode).toBe(3);
    expect(jsonLines(unsupported.stdout)[0]!.error).toMatchObject({ code: 'UNSUPPORTED_CONVERSION' });
  });

  it('exits 1 when the conversion fails, with the error code', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    // TOML has no null: the data engine refuses to write a list holding one
    writeFileSync(join(dir, 'in', 'gaps.json'), '{"a": [1, null, 3]}');
    const r = await fileconv(['convert', 'in/gaps.json', '--to', 'toml'], dir);
    expect(r.exitCode).toBe(1);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ ok: false, error: { code: 'CONVERT_FAILED' } });
  });
});

describe('fileconv catalog', () => {
  it('runs a PDF operation without writing over its input, and lists what a pair takes', async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, ['Alpha page one', 'Bravo page two'], 'report.pdf');
    const before = readFileSync(pdf);
    const r = await fileconv(['convert', 'report.pdf', '--to', 'pdf', '-O', 'pages=2', '--json'], dir);
    expect(r.exitCode).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ ok: true, outputs: [join(dir, 'report_2.pdf')] });
    expect(readFileSync(pdf).equals(before)).toBe(true);
    expect(execFileSync('pdftotext', [join(dir, 'report_2.pdf'), '-'], { encoding: 'utf8' })).toMatch(
      /^\s*Bravo page two\s*$/,
    );
    // The operation flags are the same options by another name.
    const flagged = await fileconv(
      ['convert', 'report.pdf', '--to', 'pdf', '--pages', '1', '--rotate', '90', '-o', 'turned.pdf'],
      dir,
    );
    expect(flagged.exitCode, flagged.stderr).toBe(0);
    const info = execFileSync('pdfinfo', [join(dir, 'turned.pdf')], { encoding: 'utf8' });
    expect(info).toMatch(/^Pages:\s+1$/m);
    expect(info).toMatch(/^Page rot:\s+90$/m);
    const listed = await fileconv(['catalog', '--from', 'pdf', '--to', 'pdf', '--json'], dir);
    const [pair] = (JSON.parse(listed.stdout) as { conversions: { key: string; options: string[] }[] })
      .conversions;
    expect(pair?.key).toBe('pdf-pdf');
    expect(pair?.options).toEqual(
      expect.arrayContaining(['pages', 'password', 'rotate', 'split', 'user_password']),
    );
  });

  it('lists pairs as JSON with counts per family, filtered', async () => {
    const dir = tempDir();
    const r = await fileconv(['catalog', '--json', '--from', 'csv'], dir);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.count).toBe(body.conversions.length);
    expect(body.conversions.every((c: { from: string }) => c.from === 'csv')).toBe(true);
    expect(body.conversions.map((c: { key: string }) => c.key)).toContain('csv-json');
    const table = await fileconv(['catalog', '--to', 'json'], dir);
    expect(table.stdout).toMatch(/^KEY\s+FAMILY\s+LOSSY\s+STEPS/);
    expect(table.stdout).toMatch(/\n\d+ conversions/);
  });
});

describe('fileconv doctor', () => {
  it('reports every engine with version and path, or the apt-get line', async () => {
    const dir = tempDir();
    const r = await fileconv(['doctor', '--json'], dir);
    const body = JSON.parse(r.stdout);
    expect(body.engines.length).toBeGreaterThan(0);
    for (const e of body.engines) {
      expect(typeof e.ok).toBe('boolean');
      if (e.ok) expect(e.version).toBeTruthy();
    }
    expect(r.exitCode).toBe(
      body.missing_packages.length > 0 || body.engines.some((e: { ok: boolean }) => !e.ok) ? 1 : 0,
    );
  });

  it('self-tests the chosen pairs and ends with the pass/fail line', async () => {
    const dir = tempDir();
    const r = await fileconv(['doctor', '--selftest', '--only', 'csv-json,json-yaml,yaml-xml'], dir);
    const lines = r.stdout.trim().split('\n');
    const last = lines[lines.length - 1]!;
    expect(last).toMatch(/^\d+ passed, \d+ failed$/);
    const [, passed, failed] = /^(\d+) passed, (\d+) failed$/.exec(last)!.map(Number);
    expect(passed! + failed!).toBe(3);
    expect(passed).toBe(3);
    const rows = lines.filter((l) => /\s(ok|FAIL)\s+\d+ ms/.test(l));
    expect(rows.map((l) => l.split(/\s+/)[0]).sort()).toEqual(['csv-json', 'json-yaml', 'yaml-xml']);
  });
});

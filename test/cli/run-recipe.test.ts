// `fileconv run RECIPE INPUTS...` as a user runs it: a recipe file's target and options on real
// files with the real engines, checked with poppler and qpdf; refused recipes with their exit code.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gradientPng, textPdf } from '../converters/_image-samples.js';
import { pageRotations, pageSizes, pageText, pdfPages } from '../helpers/merge-inputs.js';
import { addApiKey, removeDir, startTestServer, type TestServer } from '../server/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));

function fileconv(args: string[], cwd: string, env: Record<string, string> = {}) {
  return execa('node', [BIN, ...args], {
    cwd,
    reject: false,
    stdin: 'ignore',
    // A FILECONV_SERVER of the machine running the tests must not turn the local runs remote.
    env: { FILECONV_SERVER: '', FILECONV_KEY: '', ...env },
  });
}

// biome-ignore lint/suspicious/noExplicitAny: result lines are checked field by field.
function jsonLines(stdout: string): Record<string, any>[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** qpdf's answer whether a PDF cannot be opened without a password (exit 0: it needs one). */
function needsPassword(pdf: string): boolean {
  try {
    execFileSync('qpdf', ['--requires-password', pdf], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

const writeRecipe = (dir: string, name: string, recipe: unknown) =>
  writeFileSync(join(dir, name), typeof recipe === 'string' ? recipe : JSON.stringify(recipe));

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fileconv-run-'));
  await textPdf(dir, ['Alpha one', 'Alpha two', 'Alpha three'], 'alpha.pdf');
  await textPdf(dir, ['Bravo one', 'Bravo two'], 'bravo.pdf');
  // Taller than wide, and square: each fits A4 upright.
  await gradientPng(join(dir, 'tall.png'), 30, 60);
  await gradientPng(join(dir, 'square.png'), 40, 40);
  await gradientPng(join(dir, 'narrow.png'), 20, 50);
  writeRecipe(dir, 'second-turned.json', {
    name: 'second-turned',
    description: 'The second page, turned a quarter',
    to: 'pdf',
    options: { pages: '2', rotate: 90 },
  });
  writeRecipe(dir, 'images-to-a4.json', {
    name: 'images-to-a4',
    to: 'pdf',
    merge: true,
    options: { paper: 'A4' },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fileconv run', () => {
  it("converts two files with the recipe's options, one JSON line each", async () => {
    const r = await fileconv(
      ['run', 'second-turned.json', 'alpha.pdf', 'bravo.pdf', '-o', 'out', '--json'],
      dir,
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const lines = jsonLines(r.stdout).sort((a, b) => a.input.localeCompare(b.input));
    expect(lines).toEqual([
      { input: 'alpha.pdf', ok: true, outputs: [join(dir, 'out', 'alpha.pdf')], key: 'pdf-pdf' },
      { input: 'bravo.pdf', ok: true, outputs: [join(dir, 'out', 'bravo.pdf')], key: 'pdf-pdf' },
    ]);
    for (const [name, words] of [
      ['alpha.pdf', 'Alpha two'],
      ['bravo.pdf', 'Bravo two'],
    ] as const) {
      const out = join(dir, 'out', name);
      expect(pdfPages(out)).toBe(1);
      expect(pageText(out, 1)).toContain(words);
      expect(pageRotations(out)).toEqual([90]);
    }
  }, 120_000);

  it("adds -O options to the recipe's: a password for the output, another rotation", async () => {
    const r = await fileconv(
      [
        'run',
        'second-turned.json',
        'alpha.pdf',
        '-O',
        'user_password=s3cret',
        '-O',
        'rotate=180',
        '-o',
        'locked.pdf',
      ],
      dir,
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const locked = join(dir, 'locked.pdf');
    expect(needsPassword(locked)).toBe(true);
    const opened = join(dir, 'opened.pdf');
    execFileSync('qpdf', ['--password=s3cret', '--decrypt', locked, opened]);
    expect(pdfPages(opened)).toBe(1);
    expect(pageText(opened, 1)).toContain('Alpha two');
    expect(pageRotations(opened)).toEqual([180]);
  }, 120_000);

  it('merges pictures into one PDF, every page fitted to A4', async () => {
    const r = await fileconv(
      ['run', 'images-to-a4.json', 'tall.png', 'square.png', 'narrow.png', '-o', 'album.pdf', '--json'],
      dir,
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const album = join(dir, 'album.pdf');
    expect(jsonLines(r.stdout)).toEqual([
      { input: 'tall.png square.png narrow.png', ok: true, outputs: [album], key: 'merge-pdf' },
    ]);
    expect(pageSizes(album)).toEqual([
      [595, 842],
      [595, 842],
      [595, 842],
    ]);
  }, 120_000);

  it('converts one input of a merge recipe on its own', async () => {
    const r = await fileconv(['run', 'images-to-a4.json', 'tall.png', '--json'], dir);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      { input: 'tall.png', ok: true, outputs: [join(dir, 'tall.pdf')], key: 'png-pdf' },
    ]);
    expect(pageSizes(join(dir, 'tall.pdf'))).toEqual([[595, 842]]);
  }, 60_000);
});

describe('fileconv run refuses a recipe before any input is read', () => {
  const cases: [string, unknown, number, RegExp, Record<string, string>][] = [
    [
      'unknown-option.json',
      { name: 'x', to: 'pdf', options: { spin: 90 } },
      2,
      /^unknown-option\.json: recipe unknown option spin$/,
      { option: 'spin' },
    ],
    [
      'bad-value.json',
      { name: 'x', to: 'pdf', options: { rotate: 45 } },
      2,
      /^bad-value\.json: recipe option rotate must be one of 90, 180, 270$/,
      { option: 'rotate' },
    ],
    [
      'with-password.json',
      { name: 'x', to: 'pdf', options: { user_password: 'kept' } },
      2,
      /^with-password\.json: recipe option user_password is a password: a recipe keeps none/,
      { option: 'user_password' },
    ],
    [
      'bad-name.json',
      { name: 'Not A Name', to: 'pdf' },
      2,
      /^bad-name\.json: recipe name must be 1 to 64 lower-case letters/,
      { field: 'name' },
    ],
    ['not-json.json', '{"name": "x", to: pdf', 2, /^recipe file not-json\.json is not JSON: /, {}],
  ];

  it.each(cases)(
    '%s',
    async (file, recipe, code, message, named) => {
      writeRecipe(dir, file, recipe);
      const before = readdirSync(dir).sort();
      const r = await fileconv(['run', file, 'alpha.pdf', '--json'], dir);
      expect(r.exitCode).toBe(code);
      const [line, ...more] = jsonLines(r.stdout);
      expect(more).toEqual([]);
      expect(line!.ok).toBe(false);
      expect(line!.error).toMatchObject({ code: 'INVALID_REQUEST', ...named });
      expect(line!.error.message).toMatch(message);
      expect(readdirSync(dir).sort()).toEqual(before);
    },
    60_000,
  );

  it('names a missing recipe file (exit 1)', async () => {
    const r = await fileconv(['run', 'missing.json', 'alpha.pdf', '--json'], dir);
    expect(r.exitCode).toBe(1);
    expect(jsonLines(r.stdout)).toEqual([
      {
        ok: false,
        error: {
          code: 'FILE_NOT_FOUND',
          message: 'recipe file missing.json does not exist or is not a file',
        },
      },
    ]);
    expect(existsSync(join(dir, 'alpha_2.pdf'))).toBe(false);
  }, 60_000);
});

describe('fileconv run --server', () => {
  let server: TestServer;
  let key = '';
  beforeAll(async () => {
    server = await startTestServer();
    key = await addApiKey(server.dataDir);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    removeDir(server?.dataDir ?? '');
  });

  it("sends the recipe's target and options to the server, with the same result line", async () => {
    const r = await fileconv(
      [
        'run',
        'second-turned.json',
        'bravo.pdf',
        '-o',
        'remote/',
        '--server',
        server.url,
        '--key',
        key,
        '--json',
      ],
      dir,
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const out = join(dir, 'remote', 'bravo.pdf');
    expect(jsonLines(r.stdout)).toEqual([{ input: 'bravo.pdf', ok: true, outputs: [out], key: 'pdf-pdf' }]);
    expect(pdfPages(out)).toBe(1);
    expect(pageText(out, 1)).toContain('Bravo two');
    expect(pageRotations(out)).toEqual([90]);
  }, 180_000);
});

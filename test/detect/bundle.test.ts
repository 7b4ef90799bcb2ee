// The built `fileconv detect` (dist/detect-main.js, one self-contained file for start-up speed)
// must answer exactly as the detector does from the sources, and load no package at run time.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/detect/index.js';
import { FIXTURES } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const BUNDLE = join(ROOT, 'dist', 'detect-main.js');

function newest(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs),
  );
}

const fixtures = readdirSync(FIXTURES, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && !/^expected(-[a-z]+)?\.json$/.test(e.name) && e.name !== 'README.md')
  .map((e) => join(e.parentPath, e.name))
  .sort();

beforeAll(() => {
  const builtAt = statSync(BUNDLE, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (builtAt < newest(join(ROOT, 'src'))) {
    throw new Error('dist/detect-main.js is missing or older than the sources: run `npm run build` first');
  }
});

describe('the built detect command', () => {
  it('reports every fixture as the sources do', async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [CLI, 'detect', '--json', ...fixtures],
        { maxBuffer: 16 * 1024 * 1024 },
        (error, out) => (error && error.code !== 3 ? reject(error) : resolve(out)),
      );
    });
    const rows = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const expected = await Promise.all(fixtures.map(async (file) => ({ file, ...(await detect(file)) })));
    expect(rows).toEqual(expected);
  });

  it('imports and requires only node built-ins', () => {
    const source = readFileSync(BUNDLE, 'utf8');
    const specifiers = [
      ...source.matchAll(/(?:^|\n)\s*import\s[^;]*?from\s*["']([^"']+)["']/g),
      ...source.matchAll(/\brequire\(["']([^"']+)["']\)/g),
      ...source.matchAll(/\bimport\(["']([^"']+)["']\)/g),
    ].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => !isBuiltin(s))).toEqual([]);
  });

  it('names the encoding of text that is not UTF-8, as detect() does (declared, or told by the detector)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fileconv-bundle-'));
    try {
      const page = join(dir, 'page.html');
      // "Привет, мир: это страница." in windows-1251 (iconv -t WINDOWS-1251).
      const cyrillic = Buffer.from('cff0e8e2e5f22c20ece8f03a20fdf2ee20f1f2f0e0ede8f6e02e', 'hex');
      writeFileSync(
        page,
        Buffer.concat([Buffer.from('<html><head><meta charset="windows-1251"></head><body><p>'), cyrillic]),
      );
      const text = join(dir, 'notes.txt');
      // "你好，世界。這是一個測試。" in Big5 (iconv -t BIG5), repeated.
      const big5 = Buffer.from('a741a66ea141a540acc9a143b36fac4fa440add3b4fab8d5a143', 'hex');
      writeFileSync(text, Buffer.concat(Array.from({ length: 8 }, () => big5)));
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [CLI, 'detect', '--json', page, text], (error, out) =>
          error && error.code !== 3 ? reject(error) : resolve(out),
        );
      });
      const rows = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(rows.map((r) => r.encoding)).toEqual([
        (await detect(page)).encoding,
        (await detect(text)).encoding,
      ]);
      expect(rows.map((r) => r.encoding)).toEqual(['windows-1251', 'big5']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

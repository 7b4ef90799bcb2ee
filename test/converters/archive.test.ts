import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import archive, { ARCHIVES, COMPRESSED } from '../../converters/archive.js';
import { detectFile } from '../../src/detect/index.js';
import { findBinary } from '../../src/run/binary.js';
import { engineSandbox, resetEngineSandbox } from '../../src/run/sandbox.js';
import { fixture } from '../detect/helpers.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';

const bsdtar = findBinary(['bsdtar']);
const noBsdtar = !bsdtar;

/** The entry names of an archive, as bsdtar reads them. */
function entries(file: string): string[] {
  return execFileSync(bsdtar!, ['-tf', file], { encoding: 'utf8' }).trim().split('\n').sort();
}

/** A folder of two text files, archived by bsdtar with `args` (format and compression). */
function made(name: string, ...args: string[]): string {
  const dir = tempDir();
  const tree = join(dir, 'tree');
  mkdirSync(join(tree, 'docs'), { recursive: true });
  writeFileSync(join(tree, 'note.txt'), 'The quick brown fox.\n');
  writeFileSync(join(tree, 'docs', 'readme.md'), '# Read me\n');
  const file = join(dir, name);
  execFileSync(bsdtar!, ['-cf', file, ...args, '-C', tree, 'note.txt', 'docs']);
  return file;
}

describe('archive converter', () => {
  it('lists every archive and compressed format, and repacks each but ZIP into a ZIP', () => {
    for (const from of [...ARCHIVES, ...COMPRESSED]) {
      expect(archive.edges).toContainEqual(expect.objectContaining({ from, to: 'txt', lossy: true }));
      expect(archive.edges).toContainEqual(expect.objectContaining({ from, to: 'zip', lossy: false }));
    }
    expect(archive.edges).toContainEqual(expect.objectContaining({ from: 'zip', to: 'txt' }));
    expect(archive.edges.some((e) => e.from === 'zip' && e.to === 'zip')).toBe(false);
  });

  it.skipIf(noBsdtar)('probes bsdtar', async () => {
    expect((await archive.probe()).version).toMatch(/^\d+\.\d+/);
  });

  it.skipIf(noBsdtar)('lists a .tar.xz and repacks its entries into a ZIP', async () => {
    const input = made('bundle.tar.xz', '--format', 'ustar', '-J');
    const listing = await runStep(archive, 'xz', 'txt', input);
    const text = readFileSync(listing.files[0]!, 'utf8');
    expect(text).toMatch(/\bnote\.txt$/m);
    expect(text).toMatch(/\bdocs\/readme\.md$/m);
    const zip = await runStep(archive, 'xz', 'zip', input);
    expect((await detectFile(zip.files[0]!)).id).toBe('zip');
    expect(entries(zip.files[0]!)).toEqual(['docs/', 'docs/readme.md', 'note.txt']);
    const note = execFileSync(bsdtar!, ['-xOf', zip.files[0]!, 'note.txt'], { encoding: 'utf8' });
    expect(note).toBe('The quick brown fox.\n');
  });

  it.skipIf(noBsdtar)('reads RAR 4 and RAR 5, LHA, cpio, xar, ISO 9660 and Debian packages', async () => {
    const cases: [string, string][] = [
      ['rar', 'binary/archive-v4.rar'],
      ['rar', 'binary/archive-v5.rar'],
      ['lzh', 'binary/archive-level2.lzh'],
      ['cpio', 'binary/archive-bin.cpio'],
      ['xar', 'binary/archive.xar'],
      ['iso', 'binary/disk-joliet.iso'],
      ['deb', 'binary/hello-note.deb'],
      ['cab', 'binary/archive.cab'],
    ];
    for (const [from, name] of cases) {
      const listing = readFileSync((await runStep(archive, from, 'txt', fixture(name))).files[0]!, 'utf8');
      const zip = (await runStep(archive, from, 'zip', fixture(name))).files[0]!;
      const names = entries(zip);
      expect(names.length, name).toBeGreaterThan(0);
      for (const entry of names) expect(listing, `${name}: ${entry}`).toContain(entry.replace(/\/$/, ''));
    }
  });

  it.skipIf(noBsdtar)(
    'makes a compressed file that holds no archive one entry, named by its content',
    async () => {
      const listing = await runStep(archive, 'xz', 'txt', fixture('binary/note.txt.xz'));
      expect(readFileSync(listing.files[0]!, 'utf8')).toBe('content.txt\t45 bytes\n');
      for (const [from, name] of [
        ['xz', 'binary/note.txt.xz'],
        ['zst', 'binary/note-pzstd.txt.zst'],
        ['lz4', 'binary/note-legacy.txt.lz4'],
        ['z', 'binary/note.txt.z'],
        ['bz2', 'binary/note.txt.bz2'],
        ['lzma', 'binary/note.txt.lzma'],
        ['lz', 'binary/note.txt.lz'],
      ] as const) {
        const zip = (await runStep(archive, from, 'zip', fixture(name))).files[0]!;
        expect(entries(zip), name).toEqual(['content.txt']);
        expect(execFileSync(bsdtar!, ['-xOf', zip, 'content.txt'], { encoding: 'utf8' })).toBe(
          'The quick brown fox jumps over the lazy dog.\n',
        );
      }
    },
  );

  it.skipIf(noBsdtar)('never writes an entry outside the job folder: a ../ name stays a name', async () => {
    const dir = tempDir();
    const inner = join(dir, 'inner');
    mkdirSync(inner);
    writeFileSync(join(dir, 'escape.txt'), 'outside\n');
    const tar = join(inner, 'evil.tar');
    // bsdtar keeps the ../ only when told to (-P), as a hostile archive would have it.
    execFileSync(bsdtar!, ['-cPf', tar, '-C', inner, '../escape.txt']);
    const out = await runStep(archive, 'tar', 'zip', tar);
    expect(entries(out.files[0]!)).toEqual(['../escape.txt']);
    expect(readdirSync(dirname(out.outDir)).some((f) => f === 'escape.txt')).toBe(false);
    expect(existsSync(join(dirname(out.files[0]!), '..', 'escape.txt'))).toBe(false);
  });

  it.skipIf(noBsdtar || !engineSandbox().limits)(
    'stops a compressed file that inflates past the output cap (OUTPUT_TOO_LARGE)',
    async () => {
      const bomb = join(tempDir(), 'zeros.gz');
      writeFileSync(bomb, gzipSync(Buffer.alloc(8 * 1024 * 1024, 'a')));
      process.env.FILECONV_ENGINE_OUTPUT_LIMIT = '1M';
      resetEngineSandbox();
      try {
        await expectCode(runStep(archive, 'gz', 'zip', bomb), 'OUTPUT_TOO_LARGE');
      } finally {
        delete process.env.FILECONV_ENGINE_OUTPUT_LIMIT;
        resetEngineSandbox();
      }
    },
  );

  it.skipIf(noBsdtar)('reports a truncated archive as MALFORMED_DOCUMENT', async () => {
    const whole = readFileSync(made('bundle.7z', '--format', '7zip'));
    const cut = join(tempDir(), 'cut.7z');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    await expectCode(runStep(archive, '7z', 'zip', cut), 'MALFORMED_DOCUMENT');
    await expectCode(runStep(archive, '7z', 'txt', cut), 'MALFORMED_DOCUMENT');
  });
});

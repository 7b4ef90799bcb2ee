import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detect, detectFile } from '../../src/detect/index.js';
import { EXPECTED, fixture, namedFileWriter } from './helpers.js';

const write = namedFileWriter('fileconv-binary-');
const binaryFixtures = Object.entries(EXPECTED).filter(([name]) => name.startsWith('binary/'));

describe('binary formats: every variant fixture', () => {
  it.each(binaryFixtures)('%s is %s', async (name, id) => {
    expect((await detectFile(fixture(name))).id).toBe(id);
  });

  it('covers each compressed, archive, executable, font and model format with variants', () => {
    const ids = new Set(binaryFixtures.map(([, id]) => id));
    expect(ids.size).toBeGreaterThanOrEqual(30);
    const variants = (id: string) => binaryFixtures.filter(([, v]) => v === id).length;
    for (const id of ['bz2', 'zst', 'lz4', 'cpio', 'iso', 'rar', 'lzh', 'exe', 'elf', 'macho', 'stl', 'ply'])
      expect(variants(id), id).toBeGreaterThanOrEqual(2);
  });
});

describe('binary formats: look-alikes are not taken', () => {
  it('a zlib stream starting 78 01 is not an Apple disk image', async () => {
    const zlib = deflateSync(Buffer.alloc(4000, 7), { level: 1 });
    expect(zlib[0]).toBe(0x78);
    expect(zlib[1]).toBe(0x01);
    expect((await detectFile(write('data.bin', zlib))).id).toBe('bin');
  });

  it('an InstallShield cabinet (ISc() is not a Microsoft Cabinet', async () => {
    const bytes = Buffer.concat([Buffer.from('ISc('), Buffer.from([1, 0, 0, 0x0c]), Buffer.alloc(200, 0x11)]);
    expect((await detectFile(write('setup.cab', bytes))).id).not.toBe('cab');
  });

  it('BZh without a block magic is not bzip2, nor ASCII digits a cpio header', async () => {
    expect((await detectFile(write('a.bz2', Buffer.from('BZh9 is how it starts\n')))).id).not.toBe('bz2');
    expect((await detectFile(write('ids.txt', '070707 was the first id\n070708 the next\n'))).id).toBe('txt');
  });

  it('a gzip-compressed Blender file is a Blender file, other gzip streams stay gzip', async () => {
    expect((await detectFile(fixture('binary/default-250-gzip.blend'))).id).toBe('blend');
    expect((await detectFile(fixture('archive.gz'))).id).toBe('gz');
  });

  it('prose that opens with "solid" is not an STL model, nor notes with v lines OBJ', async () => {
    expect((await detectFile(write('a.txt', 'solid work pays off\nevery day.\n'))).id).toBe('txt');
    expect((await detectFile(write('b.txt', 'v 1 2 3\nand then some prose follows here.\n'))).id).toBe('txt');
  });

  it('a truncated binary STL is no longer one (its size no longer matches its count)', async () => {
    const stl = readFileSync(fixture('binary/cube-binary.stl'));
    expect((await detectFile(write('cut.stl', stl.subarray(0, stl.length - 1)))).id).not.toBe('stl');
  });

  it('a declared name agrees with the detected format, and a wrong one does not', async () => {
    const report = await detect(fixture('binary/note.txt.xz'), { filename: 'notes.txz' });
    expect(report).toMatchObject({ declared: 'xz', detected: 'xz', match: true, mime: 'application/x-xz' });
    const wrong = await detect(fixture('binary/archive-v5.rar'), { filename: 'archive.7z' });
    expect(wrong).toMatchObject({ declared: '7z', detected: 'rar', match: false });
  });
});

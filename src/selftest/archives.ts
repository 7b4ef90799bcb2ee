import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { execa } from 'execa';
import type { FormatId } from '../formats/index.js';
import { findBinary } from '../run/binary.js';

/**
 * bsdtar's `--format` (and compression flag) for each archive seed: libarchive writes all of
 * these. An `ar` archive holds no folders, so it gets the files only.
 */
const BSDTAR_SEEDS: Record<FormatId, string[]> = {
  tar: ['--format', 'ustar'],
  '7z': ['--format', '7zip'],
  cpio: ['--format', 'newc'],
  iso: ['--format', 'iso9660'],
  xar: ['--format', 'xar'],
  gz: ['--format', 'ustar', '-z'],
  bz2: ['--format', 'ustar', '-j'],
  xz: ['--format', 'ustar', '-J'],
  lzma: ['--format', 'ustar', '--lzma'],
  lz: ['--format', 'ustar', '--lzip'],
  zst: ['--format', 'ustar', '--zstd'],
  lz4: ['--format', 'ustar', '--lz4'],
  z: ['--format', 'ustar', '-Z'],
};

async function run(file: string, args: string[], cwd: string): Promise<void> {
  await execa(file, args, { cwd, timeout: 60_000, stdin: 'ignore' });
}

/**
 * Seeds of the archive formats, each written by the tool that writes it (bsdtar, dpkg-deb, gcab,
 * rpmbuild, lha) from one small folder of text files. A format whose tool is missing gets none.
 */
export async function writeArchiveSeeds(dir: string, text: string): Promise<Map<FormatId, string>> {
  const seeds = new Map<FormatId, string>();
  const tree = join(dir, 'archive-tree');
  await mkdir(join(tree, 'docs'), { recursive: true });
  await writeFile(join(tree, 'note.txt'), text);
  await writeFile(join(tree, 'docs', 'readme.md'), '# Self-test\n\nAn archived file.\n');
  const bsdtar = findBinary(['bsdtar']);
  if (bsdtar) {
    for (const [id, args] of Object.entries(BSDTAR_SEEDS)) {
      const path = join(dir, `seed.${id}`);
      await run(bsdtar, ['-cf', path, ...args, 'note.txt', 'docs'], tree);
      seeds.set(id, path);
    }
    const ar = join(dir, 'seed.ar');
    await run(bsdtar, ['-cf', ar, '--format', 'argnu', 'note.txt'], tree);
    seeds.set('ar', ar);
  }
  await optional(seeds, 'deb', () => debSeed(dir, tree));
  await optional(seeds, 'cab', async () => {
    const cab = join(dir, 'seed.cab');
    await run(findBinary(['gcab'])!, ['-c', '-z', cab, 'note.txt', 'docs/readme.md'], tree);
    return cab;
  });
  await optional(seeds, 'lzh', async () => {
    const lzh = join(dir, 'seed.lzh');
    await run(findBinary(['lha'])!, ['a', lzh, 'note.txt', 'docs/readme.md'], tree);
    return lzh;
  });
  await optional(seeds, 'rpm', () => rpmSeed(dir));
  await optional(seeds, 'rar', async () => {
    const rar = join(dir, 'seed.rar');
    await writeFile(rar, storedRar('note.txt', Buffer.from(text)));
    return rar;
  });
  return seeds;
}

/**
 * A RAR 4 archive of one stored (uncompressed) file. No Debian tool writes RAR, so the sample is
 * written here from the format's published header layout, as tinyPdf writes a PDF: a marker, the
 * main header, one file header and the end block, each header with the low 16 bits of its CRC-32.
 */
export function storedRar(name: string, data: Buffer): Buffer {
  const crc32 = (zlib as { crc32?: (b: Buffer) => number }).crc32;
  if (!crc32) throw new Error('zlib.crc32 needs Node 20.15');
  const block = (type: number, flags: number, rest: Buffer) => {
    const body = Buffer.alloc(5 + rest.length);
    body.writeUInt8(type, 0);
    body.writeUInt16LE(flags, 1);
    body.writeUInt16LE(7 + rest.length, 3);
    rest.copy(body, 5);
    const crc = Buffer.alloc(2);
    crc.writeUInt16LE(crc32(body) & 0xffff);
    return Buffer.concat([crc, body]);
  };
  const file = Buffer.alloc(25 + name.length);
  file.writeUInt32LE(data.length, 0); // packed size
  file.writeUInt32LE(data.length, 4); // unpacked size
  file.writeUInt8(3, 8); // host OS: Unix
  file.writeUInt32LE(crc32(data) >>> 0, 9);
  file.writeUInt32LE(0x5b210000, 13); // DOS date and time: 2025-09-01 00:00
  file.writeUInt8(20, 17); // version needed: 2.0
  file.writeUInt8(0x30, 18); // method: store
  file.writeUInt16LE(name.length, 19);
  file.writeUInt32LE(0o100644, 21); // Unix mode
  file.write(name, 25, 'latin1');
  return Buffer.concat([
    Buffer.from('Rar!\x1a\x07\x00', 'latin1'),
    block(0x73, 0, Buffer.alloc(6)),
    block(0x74, 0x8000, file),
    data,
    block(0x7b, 0x4000, Buffer.alloc(0)),
  ]);
}

/** Adds the seed `make` writes, unless its tool is missing or fails (the self-test then names it). */
async function optional(seeds: Map<FormatId, string>, id: FormatId, make: () => Promise<string>) {
  try {
    seeds.set(id, await make());
  } catch {
    // no seed: the pairs from this format report "no sample"
  }
}

async function debSeed(dir: string, tree: string): Promise<string> {
  const root = join(dir, 'deb-root');
  await mkdir(join(root, 'DEBIAN'), { recursive: true });
  await mkdir(join(root, 'usr', 'share', 'doc', 'selftest'), { recursive: true });
  await writeFile(
    join(root, 'DEBIAN', 'control'),
    'Package: selftest\nVersion: 1.0\nArchitecture: all\nMaintainer: fileconv <selftest@example.org>\nDescription: self-test\n',
  );
  await run('cp', [join(tree, 'note.txt'), join(root, 'usr', 'share', 'doc', 'selftest')], dir);
  const deb = join(dir, 'seed.deb');
  await run(findBinary(['dpkg-deb'])!, ['--root-owner-group', '--build', root, deb], dir);
  return deb;
}

async function rpmSeed(dir: string): Promise<string> {
  const top = join(dir, 'rpm-top');
  await mkdir(join(top, 'SPECS'), { recursive: true });
  const spec = join(top, 'SPECS', 'selftest.spec');
  await writeFile(
    spec,
    [
      'Name: selftest',
      'Version: 1.0',
      'Release: 1',
      'Summary: self-test',
      'License: MIT',
      'BuildArch: noarch',
      '%description',
      'self-test',
      '%install',
      'mkdir -p %{buildroot}/usr/share/doc/selftest',
      'echo self-test > %{buildroot}/usr/share/doc/selftest/note.txt',
      '%files',
      '/usr/share/doc/selftest/note.txt',
      '',
    ].join('\n'),
  );
  await run(findBinary(['rpmbuild'])!, ['--quiet', '--define', `_topdir ${top}`, '-bb', spec], dir);
  return join(top, 'RPMS', 'noarch', 'selftest-1.0-1.noarch.rpm');
}

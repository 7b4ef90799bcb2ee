import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findBinary } from '../../src/run/binary.js';
import { fileScopedDir } from '../helpers/office.js';
import { decodeIndependently, identifiersCheck, mojibakeOf } from './content.js';

const fixtures = fileScopedDir('fileconv-content-checks-');
afterAll(() => fixtures.cleanup());

const ZH = '這是一個繁體中文的段落，用來測試文字編碼。';

describe('the real-world run’s mojibake check', () => {
  it('passes text read right, in any script', () => {
    expect(mojibakeOf(ZH, `${ZH}\n`)).toBeUndefined();
    expect(mojibakeOf('Naïve façade, déjà vu', 'Naïve façade, déjà vu')).toBeUndefined();
  });

  it('fails UTF-8 read as Latin-1, a two-byte encoding read as Latin-1, and U+FFFD', () => {
    const utf8AsLatin1 = Buffer.from('Naïve façade, déjà vu, élève', 'utf8').toString('latin1');
    expect(mojibakeOf('Naïve façade, déjà vu, élève', utf8AsLatin1)).toMatch(
      /UTF-8 sequences shown as Latin-1/,
    );
    const big5 = execFileSync('iconv', ['-f', 'UTF-8', '-t', 'BIG5'], { input: ZH });
    expect(mojibakeOf(ZH, big5.toString('latin1'))).toMatch(/Latin-1|Han/);
    expect(mojibakeOf(ZH, ZH.replace('中文', '\ufffd\ufffd'))).toMatch(/U\+FFFD/);
  });

  it.skipIf(!findBinary(['uchardet']))(
    'decodes a Big5 file without this project’s decoder (skipped: needs uchardet)',
    async () => {
      const file = join(fixtures.dir, 'big5.txt');
      writeFileSync(file, execFileSync('iconv', ['-f', 'UTF-8', '-t', 'BIG5'], { input: `${ZH}\n` }));
      expect(await decodeIndependently(file)).toBe(`${ZH}\n`);
    },
  );
});

describe('the real-world run’s identifiers check', () => {
  const code = 'def parse_header(stream):\n    return stream.read_exactly(HEADER_SIZE)\n';
  const check = async (shown: string) => {
    const source = join(fixtures.dir, 'tool.py');
    const out = join(fixtures.dir, 'tool.txt');
    writeFileSync(source, code);
    writeFileSync(out, shown);
    return identifiersCheck({ source, from: 'py', to: 'txt', outputs: [out] });
  };

  it('passes printed code whose lines wrap inside a name', async () => {
    const [v] = await check('def parse_he\nader(stream):\n  return stream.read_exactly(HEADER_SIZE)');
    expect(v).toMatchObject({ check: 'identifiers', ok: true });
  });

  it('fails output that lost the names (boxes, an empty page)', async () => {
    const [v] = await check('def □□□□□□□□(□□□□□□):');
    expect(v).toMatchObject({ check: 'identifiers', ok: false });
    expect(v!.why).toMatch(/missing: parse_header/);
  });
});

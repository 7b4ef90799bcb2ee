import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import chromium from '../../converters/chromium.js';
import libreoffice from '../../converters/libreoffice.js';
import textToPdf from '../../converters/pandoc-chromium.js';
import { decodeSource } from '../../src/detect/text/encoding.js';
import { measureFidelity } from '../../src/run/measure-tools.js';
import { convertWith, fileScopedDir, pdfText, zipEntries } from '../helpers/office.js';

const fixtures = fileScopedDir('fileconv-text-encoding-');
const chromiumInstalled = (await chromium.probe()).ok;
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());

const TEXT = 'Naïve façade, déjà vu.\nThe harbour report: 42 ships in 2024.\n港湾の報告書\n';

/** The text in another encoding (iconv), after the byte order mark a writer of that encoding puts first. */
function encoded(name: string, encoding: string, bom: number[]): string {
  const out = join(dir, name);
  const body = execFileSync('iconv', ['-f', 'UTF-8', '-t', encoding], { input: TEXT });
  writeFileSync(out, Buffer.concat([Buffer.from(bom), body]));
  return out;
}

const ENCODINGS: [string, number[]][] = [
  ['UTF-16LE', [0xff, 0xfe]],
  ['UTF-16BE', [0xfe, 0xff]],
  ['UTF-32LE', [0xff, 0xfe, 0, 0]],
  ['UTF-32BE', [0, 0, 0xfe, 0xff]],
];

describe('text in another encoding than UTF-8', () => {
  it('is decoded by its byte order mark, UTF-32 before UTF-16 (both start FF FE)', () => {
    const le = Buffer.from([0xff, 0xfe, 0, 0, 0x2f, 0x6e, 0, 0, 0x41, 0, 0, 0]);
    expect(decodeSource(le, 'txt')).toMatchObject({ text: '港A', encoding: 'UTF-32LE', source: 'bom' });
    const be = Buffer.from([0, 0, 0xfe, 0xff, 0, 0, 0, 0x41, 0, 0x11, 0, 0]);
    // a code point past U+10FFFF is not Unicode
    expect(decodeSource(be, 'txt')).toMatchObject({ text: 'A\ufffd', encoding: 'UTF-32BE', source: 'bom' });
    expect(decodeSource(Buffer.from([0xff, 0xfe, 0x41, 0]), 'txt')).toMatchObject({
      text: 'A',
      encoding: 'UTF-16LE',
      source: 'bom',
    });
  });

  it('reads windows-1252 punctuation (0x80 to 0x9F) as its letters, not as control characters', () => {
    const bytes = Buffer.from([0x64, 0x6f, 0x6e, 0x92, 0x74, 0x20, 0x80, 0x96, 0xe9]);
    expect(decodeSource(bytes, 'txt').text).toBe('don\u2019t \u20ac\u2013\u00e9');
  });

  it.skipIf(!chromiumInstalled)(
    'draws an HTML page in the encoding its meta declares (skipped: Chromium is not installed)',
    async () => {
      const page = join(dir, 'legacy.html');
      const head =
        '<html><head><meta http-equiv="content-type" content="text/html; charset=windows-1252"></head>';
      writeFileSync(
        page,
        Buffer.concat([
          Buffer.from(`${head}<body><p>you don`),
          Buffer.from([0x92]),
          Buffer.from('t need it, caf\xe9</p></body></html>', 'latin1'),
        ]),
      );
      const { files } = await convertWith(chromium, 'html', 'pdf', page);
      const text = pdfText(files[0]!);
      expect(text).toContain('don\u2019t need it, café');
      expect(text).not.toContain('\ufffd');
    },
  );

  for (const [encoding, bom] of ENCODINGS) {
    it(`${encoding} text becomes HTML and DOCX with all of its words`, async () => {
      const source = encoded(`${encoding}.txt`, encoding, bom);
      for (const to of ['html', 'docx'] as const) {
        const { files, leftover } = await convertWith(libreoffice, 'txt', to, source);
        expect(leftover).toEqual([]);
        const shown =
          to === 'html'
            ? readFileSync(files[0]!, 'utf8')
            : (await zipEntries(files[0]!)).get('word/document.xml')!.toString('utf8');
        expect(shown).toContain('Naïve façade, déjà vu.');
        expect(shown).toContain('港湾の報告書');
        const report = await measureFidelity({ from: 'txt', to, source, outputs: files });
        expect(report.measures.find((m) => m.name === 'words_kept')).toMatchObject({ output: 1, ok: true });
      }
    }, 120_000);
  }

  it.skipIf(!chromiumInstalled)(
    'UTF-32 text becomes a PDF with its words (Chromium not installed)',
    async () => {
      const source = encoded('UTF-32LE-print.txt', 'UTF-32LE', [0xff, 0xfe, 0, 0]);
      const { files } = await convertWith(textToPdf, 'txt', 'pdf', source);
      expect(pdfText(files[0]!)).toContain('Naïve façade, déjà vu.');
    },
    120_000,
  );
});

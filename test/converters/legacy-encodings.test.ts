import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import chromium from '../../converters/chromium.js';
import pandoc from '../../converters/pandoc.js';
import textToPdf from '../../converters/pandoc-chromium.js';
import { detect } from '../../src/detect/index.js';
import { decodeSource } from '../../src/detect/text/encoding.js';
import { inspectGlyphs } from '../fonts/glyphs.js';
import { convertWith, fileScopedDir, pdfText } from '../helpers/office.js';
import { stepContext } from '../helpers/step.js';

/*
 * Text in the legacy encodings people still have files in, made by iconv from UTF-8 text: each
 * must be read as what it is (by the encoding detector, with no mark or declaration to go by),
 * named in the detect report, and converted to PDF and to plain text with every letter right:
 * checked by pdftotext and, for Chinese, Japanese and Korean, by the glyphs the PDF draws.
 */

const fixtures = fileScopedDir('fileconv-legacy-encodings-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());
const chromiumInstalled = (await chromium.probe()).ok;
const pandocInstalled = (await pandoc.probe()).ok;

const ZH_HANT = '這是一個繁體中文的段落，用來測試文字編碼。我們希望轉換後的文件能夠正確顯示每一個漢字。';
const ZH_HANS = '这是一个简体中文的段落，用来测试文字编码。我们希望转换后的文件能够正确显示每一个汉字。';
const JA = 'これは日本語の段落です。変換後の文書がすべての文字を正しく表示することを期待しています。';
const KO =
  '이것은 문자 인코딩을 시험하기 위한 한국어 문단입니다. 변환된 문서가 모든 글자를 보여 주기를 바랍니다.';
const RU = 'Съешь же ещё этих мягких французских булок, да выпей чаю. Это абзац для проверки кодировки.';
const CS = 'Příliš žluťoučký kůň úpěl ďábelské ódy. Tento odstavec zkouší kódování středoevropského textu.';
const FR = "Voilà un paragraphe en français : l'été, à côté du château, où les élèves étudient la géométrie.";
const EL = 'Αυτή είναι μια παράγραφος στα ελληνικά για τον έλεγχο της κωδικοποίησης του κειμένου.';

interface Sample {
  /** iconv's name for the encoding. */
  iconv: string;
  /** What the detect report names it (WHATWG). */
  reported: string;
  text: string;
  bom?: number[];
  /** For the glyph check: the script and language of the text. */
  script?: { script: string; lang: string };
}

const SAMPLES: Sample[] = [
  { iconv: 'BIG5', reported: 'big5', text: ZH_HANT, script: { script: 'Chinese', lang: 'zh-TW' } },
  { iconv: 'GB18030', reported: 'gb18030', text: ZH_HANS, script: { script: 'Chinese', lang: 'zh-CN' } },
  { iconv: 'SHIFT_JIS', reported: 'shift_jis', text: JA, script: { script: 'Japanese', lang: 'ja' } },
  { iconv: 'EUC-JP', reported: 'euc-jp', text: JA, script: { script: 'Japanese', lang: 'ja' } },
  { iconv: 'EUC-KR', reported: 'euc-kr', text: KO, script: { script: 'Korean', lang: 'ko' } },
  { iconv: 'WINDOWS-1250', reported: 'windows-1250', text: CS },
  { iconv: 'WINDOWS-1251', reported: 'windows-1251', text: RU },
  { iconv: 'WINDOWS-1252', reported: 'windows-1252', text: FR },
  { iconv: 'ISO-8859-2', reported: 'iso-8859-2', text: CS },
  { iconv: 'ISO-8859-5', reported: 'iso-8859-5', text: RU },
  { iconv: 'ISO-8859-7', reported: 'iso-8859-7', text: EL },
  { iconv: 'KOI8-R', reported: 'koi8-r', text: RU },
  { iconv: 'UTF-16LE', reported: 'utf-16le', text: JA, bom: [0xff, 0xfe] },
  { iconv: 'UTF-16BE', reported: 'utf-16be', text: JA, bom: [0xfe, 0xff] },
  { iconv: 'UTF-16LE', reported: 'utf-16le', text: `${ZH_HANT}\n${FR}` },
  { iconv: 'UTF-16BE', reported: 'utf-16be', text: `${JA}\n${FR}` },
  { iconv: 'UTF-32LE', reported: 'utf-32le', text: KO, bom: [0xff, 0xfe, 0, 0] },
  { iconv: 'UTF-32BE', reported: 'utf-32be', text: KO, bom: [0, 0, 0xfe, 0xff] },
  { iconv: 'UTF-32LE', reported: 'utf-32le', text: RU },
  { iconv: 'UTF-32BE', reported: 'utf-32be', text: RU },
];

const label = (s: Sample) =>
  `${s.iconv}${s.bom ? ' with a byte order mark' : s.iconv.startsWith('UTF') ? ' without one' : ''}`;

function write(s: Sample, ext: string): string {
  const path = join(dir, `${label(s).replace(/\W+/g, '-')}.${ext}`);
  const body = execFileSync('iconv', ['-f', 'UTF-8', '-t', s.iconv], { input: `${s.text}\n` });
  writeFileSync(path, Buffer.concat([Buffer.from(s.bom ?? []), body]));
  return path;
}

const flat = (t: string) => t.replace(/\s+/g, '').replace(/’/g, "'");

describe('text in legacy encodings', () => {
  it.each(SAMPLES.map((s) => [label(s), s] as const))(
    '%s is read right and named by detect',
    async (_, s) => {
      const file = write(s, 'txt');
      const decoded = decodeSource(readFileSync(file), 'txt');
      expect(decoded.text.replace(/^\ufeff/, '')).toBe(`${s.text}\n`);
      expect(decoded.confident).toBe(true);
      expect((await detect(file)).encoding).toBe(s.reported);
    },
  );

  it('says in the timeline when bytes have no encoding it can tell, instead of passing them silently', async () => {
    const noise = Buffer.from(Array.from({ length: 400 }, (_, i) => 0x80 + ((i * 37) % 0x7f)));
    const file = join(dir, 'noise.txt');
    writeFileSync(file, noise);
    expect(decodeSource(noise, 'txt').confident).toBe(false);
    const ctx = stepContext();
    const edge = pandoc.edges.find((e) => e.from === 'md' && e.to === 'html')!;
    const md = join(dir, 'noise.md');
    writeFileSync(md, noise);
    await pandoc.run({ edge, input: md, outDir: dir, options: {} }, ctx).catch(() => undefined);
    expect(ctx.logs.join('\n')).toMatch(/could not be told with confidence/);
  });

  it.skipIf(!chromiumInstalled || !pandocInstalled).each(SAMPLES.map((s) => [label(s), s] as const))(
    '%s becomes a PDF that draws every letter (skipped: needs Chromium and pandoc)',
    async (_, s) => {
      const { files } = await convertWith(textToPdf, 'txt', 'pdf', write(s, 'txt'));
      expect(flat(pdfText(files[0]!))).toContain(flat(s.text));
      if (s.script) {
        const phrase = s.text.slice(0, 8);
        const report = await inspectGlyphs(files[0]!, [{ ...s.script, text: phrase }]);
        expect(report.problems).toEqual([]);
      }
    },
    120_000,
  );

  it.skipIf(!pandocInstalled).each(SAMPLES.map((s) => [label(s), s] as const))(
    '%s Markdown becomes UTF-8 plain text with every letter (skipped: needs pandoc)',
    async (_, s) => {
      const { files } = await convertWith(pandoc, 'md', 'txt', write(s, 'md'));
      const out = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(files[0]!));
      expect(flat(out)).toContain(flat(s.text));
    },
    60_000,
  );
});

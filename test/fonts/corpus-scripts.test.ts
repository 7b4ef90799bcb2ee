import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FormatId } from '../../src/formats/index.js';
import { runConversion } from '../../src/run/runner.js';
import { cacheDir, readManifest } from '../corpus/fetch.js';
import { fileScopedDir } from '../helpers/office.js';
import type { ScriptLine } from './documents.js';
import { inspectGlyphs } from './glyphs.js';

/*
 * Real documents in non-Latin scripts from the real-world corpus (docs/corpus.md), converted to
 * PDF: every run of text must be drawn with a font that has its glyphs and leave no missing-glyph
 * boxes, and each phrase below, taken from the document, must be drawn in an embedded font that
 * covers it. Needs the corpus in its cache (`npm run corpus`).
 */

const SCRIPT_FILES: Record<string, readonly ScriptLine[]> = {
  'debian-faq-ko/usr/share/doc/debian/FAQ/ko/contributing.ko.html': [
    { script: 'Korean', text: '데비안 프로젝트에 기여하기', lang: 'ko' },
  ],
  'debian-faq-zh-cn/usr/share/doc/debian/FAQ/zh-cn/contributing.zh-cn.html': [
    { script: 'Chinese', text: '计划作出贡献', lang: 'zh-CN' },
  ],
  'libspreadsheet-parseexcel-perl/usr/share/doc/libspreadsheet-parseexcel-perl/examples/sample/Excel/Test95J.xls':
    [{ script: 'Japanese', text: '漢字のデータ', lang: 'ja' }],
  'libspreadsheet-parseexcel-perl/usr/share/doc/libspreadsheet-parseexcel-perl/examples/sample/Excel/Test97J.xls':
    [{ script: 'Japanese', text: '漢字のデータ', lang: 'ja' }],
  'libspreadsheet-parseexcel-perl/usr/share/doc/libspreadsheet-parseexcel-perl/examples/sample/Excel/oem.xls':
    [{ script: 'Japanese', text: '文字化けするシリーズ', lang: 'ja' }],
  'live-manual-odf/usr/share/doc/live-manual/odt/live-manual.ja.odt': [
    { script: 'Japanese kana', text: 'このマニュアルについて', lang: 'ja' },
    { script: 'Japanese kanji', text: '独自化', lang: 'ja' },
  ],
  'maint-guide-ru/usr/share/doc/maint-guide-ru/html/upload.ru.html': [
    { script: 'Cyrillic', text: 'Отправка пакета', lang: 'ru' },
  ],
};

const manifest = await readManifest();
const entries = Object.keys(SCRIPT_FILES).map((name) => {
  const entry = manifest.files.find((f) => f.name === name);
  if (!entry) throw new Error(`${name} is not in the corpus manifest`);
  return { ...entry, file: join(cacheDir(), 'files', name) };
});
const cached = entries.every(
  (e) => existsSync(e.file) && createHash('sha256').update(readFileSync(e.file)).digest('hex') === e.sha256,
);
if (!cached)
  console.warn(`corpus not cached in ${cacheDir()}: run \`npm run corpus\`; its script files are skipped`);

const out = fileScopedDir('fileconv-corpus-scripts-');
afterAll(() => out.cleanup());

describe.skipIf(!cached)('real-world documents in non-Latin scripts to PDF (needs `npm run corpus`)', () => {
  it.each(entries)(
    '$name draws its text with real glyphs',
    async (entry) => {
      const result = await runConversion({
        input: entry.file,
        from: entry.format as FormatId,
        to: 'pdf',
        outDir: out.dir,
        baseName: entry.name.replace(/\W+/g, '-'),
      });
      const pdf = result.files[0]?.path;
      expect(pdf, `${entry.format} to pdf wrote nothing`).toBeDefined();
      const report = await inspectGlyphs(pdf!, SCRIPT_FILES[entry.name]!);
      expect(report.problems).toEqual([]);
    },
    300_000,
  );
});

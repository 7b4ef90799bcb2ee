import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { countFile } from '../../src/fidelity/counts.js';
import { type FidelityReport, formatFidelityTable } from '../../src/fidelity/index.js';
import { markdownText, markupText, rtfText, textOf, wordCounts, wordsKept } from '../../src/fidelity/text.js';
import type { RunTool } from '../../src/fidelity/tools.js';
import { measureChecks, measureFidelity, withTools } from '../../src/run/measure-tools.js';
import { runConversion } from '../../src/run/runner.js';
import { reportPdfFixture } from '../helpers/layout-pdf.js';

const report = reportPdfFixture('fileconv-fidelity-');
const dir = report.dir;
let pdf: string;
beforeAll(() => {
  pdf = report.pdf();
});

/** Converts with the real catalog and measures the result. */
async function convertAndMeasure(
  source: string,
  from: string,
  to: string,
  options = {},
): Promise<FidelityReport> {
  const outDir = join(dir, `out-${from}-${to}-${Object.keys(options).join('-')}`);
  const result = await runConversion({ input: source, from, to, options, outDir });
  return measureFidelity({ from, to, source, outputs: result.files.map((f) => f.path), options });
}

const measureOf = (r: FidelityReport, name: string) => r.measures.find((m) => m.name === name);

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
}

describe('words', () => {
  it('counts recall per word occurrence, folding case and markup', () => {
    const source = wordCounts('The ship, the ship and the crane');
    expect(wordsKept(source, wordCounts('THE SHIP the crane'))).toBeCloseTo(4 / 7);
    expect(wordsKept(source, source)).toBe(1);
    expect(wordsKept(wordCounts(''), source)).toBeUndefined();
    expect(
      markupText(
        '<w:p><w:r><w:t>Quar</w:t></w:r><w:r><w:t>terly</w:t></w:r></w:p><w:p>fish &amp; chips</w:p>',
      ),
    ).toBe(' Quarterly  fish & chips ');
    expect(rtfText("{\\rtf1{\\fonttbl{\\f0 Arial;}}\\pard Caf\\'e9 au lait\\par}").trim()).toBe(
      'Café au lait',
    );
  });

  it('reads RTF as a reader sees it: destinations, line breaks of the file and Unicode fallbacks are not text', () => {
    const rtf = [
      '{\\rtf1\\uc1{\\*\\generator Microsoft Word 11;}{\\*\\xmlnstbl {\\xmlns1 http://schemas.example/wordml}}',
      "\\pard juxtacell\r\nular cells can\\rquote\r\nt \\u945\\'61 l\\u8217?utilisateur\\par}",
    ].join('');
    expect(rtfText(rtf).replace(/\s+/g, ' ').trim()).toBe('juxtacellular cells can’t α l’utilisateur');
  });

  it('reads a Markdown front matter as pandoc shows it: its title block, not its other fields', () => {
    const md = '---\ntitle: Good Plugins\nshort-description: API reference\n...\n\n# Heading\n';
    expect(Object.fromEntries(wordCounts(markdownText(md)))).toEqual({ good: 1, plugins: 1, heading: 1 });
  });

  it('reads what markup shows: no comments, named entities decoded, a bare < in Markdown is text', () => {
    expect(markupText('<p>Wait&hellip;<!-- the <div> is hidden --></p>').trim()).toBe('Wait…');
    const md = [
      'Assign with x <- 1 when a < b, then <span>shown</span>.',
      '',
      '```r',
      'df <- read_excel(path) #> <chr> <dbl>',
      '```',
      '',
      'A `<dttm>` column.',
    ].join('\n');
    expect(
      wordsKept(
        wordCounts('Assign with x 1 when a b then shown df read excel path chr dbl dttm'),
        wordCounts(markdownText(md)),
      ),
    ).toBe(1);
    expect(markdownText(md)).not.toContain('<span>');
  });

  it('reads an HTML page without what it hides, and counts each picture it carries once', async () => {
    const page = join(dir, 'hidden.html');
    const dot = 'data:image/png;base64,iVBORw0KGgo=';
    writeFileSync(
      page,
      `<table><tr style="color:white; display:none"><td>{searchable_tags}</td></tr><tr><td>Shown</td></tr></table>
       <p hidden>Secret</p><p aria-hidden="true">Icon text</p><img src="${dot}"><img src="${dot}"><img src="x.png">`,
    );
    const none = async () => undefined;
    expect(Object.fromEntries(wordCounts((await textOf(page, 'html', none)) ?? ''))).toEqual({
      shown: 1,
      icon: 1,
      text: 1,
    });
    expect((await countFile(page, 'html', none)).images).toBe(1);
  });

  it('counts Chinese, Japanese and Korean text by character, since line breaks fall inside words', () => {
    const source = wordCounts('港湾の報告書 page 한국어 문서');
    // an engine's line break inside the sentence, and Korean words spaced differently
    const output = wordCounts('港湾の\n報告書 page\n한국 어문서');
    expect(wordsKept(source, output)).toBe(1);
    expect(source.get('港')).toBe(1);
    expect(source.get('page')).toBe(1);
    expect(wordsKept(source, wordCounts('港湾 page'))).toBeCloseTo(3 / 12);
  });
});

describe('measureFidelity on real conversions', () => {
  it('document to PDF keeps words, pages and the picture', async () => {
    const odt = join(dir, 'report.odt');
    const made = await runConversion({
      input: join(dir, 'report.html'),
      from: 'html',
      to: 'odt',
      outDir: join(dir, 'odt'),
    });
    execFileSync('cp', [made.files[0]!.path, odt]);
    const report = await convertAndMeasure(odt, 'odt', 'pdf');
    expect(report.ok).toBe(true);
    expect(measureOf(report, 'words_kept')?.output).toBeGreaterThanOrEqual(0.95);
    expect(measureOf(report, 'pages')).toMatchObject({ source: 2, output: 2, ok: true });
    expect(measureOf(report, 'images')).toMatchObject({ source: 1, output: 1, ok: true });
  }, 120_000);

  it("an HTML page's pictures are those it carries: linked ones stay outside the upload", async () => {
    const page = join(dir, 'linked.html');
    const report = readFileSync(join(dir, 'report.html'), 'utf8');
    writeFileSync(
      page,
      report.replace('<h1>', '<p><img src="logo.png"><img src="https://example.invalid/top.jpg"></p><h1>'),
    );
    const toPdf = await convertAndMeasure(page, 'html', 'pdf');
    // the browser may draw its missing-picture icon in their place: one more picture object
    expect(measureOf(toPdf, 'images')).toMatchObject({ source: 1, ok: true });
  }, 120_000);

  it('PDF to text keeps the words; a text missing half of them is below the floor', async () => {
    const report = await convertAndMeasure(pdf, 'pdf', 'txt');
    expect(measureOf(report, 'words_kept')?.ok).toBe(true);
    const half = join(dir, 'half.txt');
    writeFileSync(half, 'Quarterly report of the harbour. The harbour handled more ships.');
    const poor = await measureFidelity({ from: 'pdf', to: 'txt', source: pdf, outputs: [half] });
    expect(poor.ok).toBe(false);
    expect(measureOf(poor, 'words_kept')).toMatchObject({ ok: false, floor: '>= 0.95' });
    const table = formatFidelityTable([report, poor]).split('\n');
    expect(table[0]).toBe('ok    pdf-txt         words_kept 1');
    expect(table[1]).toMatch(/^FAIL {2}pdf-txt {9}!words_kept 0\.\d{3} \(floor >= 0\.95\)/);
    expect(table[2]).toBe('1 of 2 pairs at or above every floor.');
  }, 60_000);

  it('PDF to page images makes one image per page', async () => {
    const report = await convertAndMeasure(pdf, 'pdf', 'png');
    expect(measureOf(report, 'pages')).toMatchObject({ source: 2, output: 2, ok: true });
  }, 60_000);

  it('image to image keeps the pixel size, unless a size was asked for', async () => {
    const png = join(dir, 'dot.png');
    await sharp({ create: { width: 33, height: 17, channels: 3, background: '#0a0' } })
      .png()
      .toFile(png);
    const same = await convertAndMeasure(png, 'png', 'jpg');
    expect(measureOf(same, 'size')).toMatchObject({ source: '33x17', output: '33x17', ok: true });
    const asked = await convertAndMeasure(png, 'png', 'jpg', { width: 10 });
    expect(measureOf(asked, 'size')).toBeUndefined();
    // A photo stored sideways with EXIF orientation 6 shows 17 wide and 33 high, and so does its
    // upright PNG.
    const sideways = join(dir, 'sideways.jpg');
    await sharp(png).jpeg().withMetadata({ orientation: 6 }).toFile(sideways);
    const upright = await convertAndMeasure(sideways, 'jpg', 'png');
    expect(measureOf(upright, 'size')).toMatchObject({ source: '17x33', output: '17x33', ok: true });
    const shrunk = join(dir, 'shrunk.jpg');
    await sharp(png).resize(16).jpeg().toFile(shrunk);
    const silent = await measureFidelity({ from: 'png', to: 'jpg', source: png, outputs: [shrunk] });
    expect(measureOf(silent, 'size')?.ok).toBe(false);
  }, 60_000);

  it('audio keeps its duration within 0.2 s', async () => {
    const wav = join(dir, 'tone.wav');
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', wav]);
    const report = await convertAndMeasure(wav, 'wav', 'mp3');
    const duration = measureOf(report, 'duration_s');
    expect(duration).toMatchObject({ source: 3, ok: true });
    expect(Math.abs((duration?.output as number) - 3)).toBeLessThanOrEqual(0.2);
    // Five samples at 8 kHz: the MP3 is three padded frames long, within the MP3 floor, not 0.2 s.
    const tiny = join(dir, 'tiny.wav');
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000', '-af', 'atrim=end_sample=5', tiny]);
    const padded = measureOf(await convertAndMeasure(tiny, 'wav', 'mp3'), 'duration_s');
    expect(padded).toMatchObject({ source: 0, floor: 'source ± 0.42 s', ok: true });
    expect(padded?.output).toBeGreaterThan(0.2);
  }, 60_000);

  it('an MP3 whose header claims far more than it holds is judged by its decoded length', async () => {
    const mp3 = join(dir, 'short.mp3');
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'libmp3lame', '-b:a', '64k', mp3]);
    // The Xing/Info frame's count of frames, raised as a stale tag leaves it: ffprobe then
    // reports about half an hour.
    const bytes = readFileSync(mp3);
    const tag = Math.max(bytes.indexOf('Xing'), bytes.indexOf('Info'));
    expect(tag).toBeGreaterThan(0);
    expect(bytes.readUInt32BE(tag + 4) & 1).toBe(1);
    bytes.writeUInt32BE(70_000, tag + 8);
    writeFileSync(mp3, bytes);
    const claimed = Number(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', mp3], {
        encoding: 'utf8',
      }),
    );
    expect(claimed).toBeGreaterThan(1000);
    const duration = measureOf(await convertAndMeasure(mp3, 'mp3', 'wav'), 'duration_s');
    expect(duration).toMatchObject({ ok: true });
    expect(Math.abs((duration?.source as number) - 1)).toBeLessThanOrEqual(0.1);
  }, 60_000);

  it('an animated GIF keeps its frames, and a video made into a GIF keeps its length', async () => {
    const gif = join(dir, 'anim.gif');
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1', gif]);
    const webp = await convertAndMeasure(gif, 'gif', 'webp');
    expect(measureOf(webp, 'frames')).toMatchObject({ source: 10, output: 10, ok: true });
    const mp4 = join(dir, 'clip.mp4');
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=30', '-t', '2', '-pix_fmt', 'yuv420p', mp4]);
    const toGif = await convertAndMeasure(mp4, 'mp4', 'gif');
    expect(measureOf(toGif, 'duration_s')).toMatchObject({ source: 2, ok: true });
    // GIFs are written at a lower frame rate by design: the length is judged, not the frames.
    expect(measureOf(toGif, 'frames')).toBeUndefined();
    expect(toGif.ok).toBe(true);
  }, 120_000);

  it('spreadsheets keep their sheets and rows', async () => {
    const book = new ExcelJS.Workbook();
    const first = book.addWorksheet('Berths');
    first.addRows([
      ['Berth', 'Ships'],
      ['North', 42],
      ['South', 37],
      ['East', 29],
    ]);
    book.addWorksheet('Notes').addRow(['dredging in winter']);
    const xlsx = join(dir, 'berths.xlsx');
    await book.xlsx.writeFile(xlsx);
    const ods = await convertAndMeasure(xlsx, 'xlsx', 'ods');
    expect(measureOf(ods, 'sheets')).toMatchObject({ source: 2, output: 2, ok: true });
    expect(measureOf(ods, 'rows')).toMatchObject({ source: 4, output: 4, ok: true });
    const csv = await convertAndMeasure(xlsx, 'xlsx', 'csv');
    expect(measureOf(csv, 'rows')).toMatchObject({ source: 4, output: 4, ok: true });
    expect(measureOf(csv, 'sheets')).toBeUndefined();
    // A CSV holds the first sheet only, so the words of the others are not asked of it.
    expect(measureOf(csv, 'words_kept')).toBeUndefined();
    expect(measureOf(ods, 'words_kept')).toMatchObject({ output: 1, ok: true });
  }, 120_000);
});

describe('checks of a PDF with an output intent', () => {
  it('reads its pages from a copy without the intent, and counts the same pages, pictures and words', async () => {
    const outDir = join(dir, 'out-pdfa-checks');
    const made = await runConversion({ input: pdf, from: 'pdf', to: 'pdf', options: { pdfa: '2b' }, outDir });
    const pdfa = made.files[0]!.path;
    expect(readFileSync(pdfa).includes('/OutputIntents')).toBe(true);

    const packed = join(outDir, 'packed.pdf');
    const copy = await withTools(undefined, async (run) => {
      const path = await run.pdfForPages!(pdfa);
      expect(path).not.toBe(pdfa);
      expect(readFileSync(path).includes('/OutputIntents')).toBe(false);
      expect(await run.pdfForPages!(pdf)).toBe(pdf);
      // With the catalog in an object stream (as OCRmyPDF writes), the PDF/A identification in
      // the plain metadata still tells.
      execFileSync('qpdf', ['--object-streams=generate', pdfa, packed]);
      expect(readFileSync(packed).includes('/OutputIntents')).toBe(false);
      expect(await run.pdfForPages!(packed)).not.toBe(packed);
      return path;
    });
    // The copy lives in the measuring scratch folder, removed with it.
    expect(() => readFileSync(copy)).toThrow();

    // A PDF/A source and a PDF/A output, asked for at once, get a copy each.
    await withTools(undefined, async (run) => {
      const [a, b] = await Promise.all([run.pdfForPages!(pdfa), run.pdfForPages!(packed)]);
      expect(a).not.toBe(b);
      expect(execFileSync('qpdf', ['--show-npages', a], { encoding: 'utf8' }).trim()).toBe(
        execFileSync('qpdf', ['--show-npages', b], { encoding: 'utf8' }).trim(),
      );
    });

    // The same measures poppler gives on the PDF/A itself, read without the copy.
    const direct: RunTool = async (tool, args) => execFileSync(tool, args, { encoding: 'utf8' });
    const counts = await countFile(pdfa, 'pdf', direct);
    const words = wordCounts((await textOf(pdfa, 'pdf', direct)) ?? '');
    expect(counts.pages).toBeGreaterThan(1);
    expect(counts.images).toBeGreaterThan(0);
    const [checks] = await measureChecks({ from: 'pdf', to: 'pdf', source: pdf, outputs: [pdfa] });
    expect(checks).toMatchObject({ pages: counts.pages, images: counts.images, words_kept: 1 });
    expect(checks?.words).toBe([...words.values()].reduce((a, b) => a + b, 0));
  }, 120_000);
});

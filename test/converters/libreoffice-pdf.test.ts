import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LAYOUT_PAGE_BUDGET } from '../../converters/libreoffice/pdf-import.js';
import libreoffice from '../../converters/libreoffice.js';
import { loadCatalog, planConversion } from '../../src/plan/index.js';
import { measureFidelity } from '../../src/run/measure-tools.js';
import { runConversion } from '../../src/run/runner.js';
import type { RunEvent } from '../../src/run/types.js';
import { reportPdfFixture, SECOND_PAGE_WORDS } from '../helpers/layout-pdf.js';
import { convertWith, expectCode, pdfPageCount, pdfText, zipEntries } from '../helpers/office.js';
import { stepContext, tempDir } from '../helpers/step.js';
import { encryptedPdf, textPdf } from './_image-samples.js';

const report = reportPdfFixture('fileconv-lo-pdf-');
const dir = report.dir;
let pdf: string;
beforeAll(() => {
  pdf = report.pdf();
});

/** The output rendered back to PDF by LibreOffice, as a person opening it would see it. */
async function renderBack(from: string, file: string): Promise<string> {
  const { files } = await convertWith(libreoffice, from, 'pdf', file);
  const out = join(dir, `back-${from}.pdf`);
  copyFileSync(files[0] as string, out);
  return out;
}

describe('libreoffice PDF import', () => {
  it('makes the sample: two pages, one picture', () => {
    expect(pdfPageCount(pdf)).toBe(2);
    expect(pdfText(pdf)).toContain('Quarterly report');
  });

  for (const to of ['docx', 'odt', 'rtf'] as const) {
    it(`pdf to ${to} keeps the pages, the picture and the words (layout mode)`, async () => {
      const { files, leftover } = await convertWith(libreoffice, 'pdf', to, pdf);
      expect(leftover).toEqual([]);
      const out = join(dir, `report.${to}`);
      copyFileSync(files[0] as string, out);
      const report = await measureFidelity({ from: 'pdf', to, source: pdf, outputs: [out] });
      const byName = Object.fromEntries(report.measures.map((m) => [m.name, m]));
      expect(byName.words_kept?.output).toBeGreaterThanOrEqual(0.95);
      expect(byName.images).toMatchObject({ source: 1, output: 1, ok: true });
      // Opened again, page two is still page two: frames are not stacked on the first page.
      const back = await renderBack(to, out);
      expect(pdfPageCount(back)).toBe(2);
      const [, second] = pdfText(back).split('\f');
      expect(second?.replace(/\s+/g, ' ')).toContain(SECOND_PAGE_WORDS);
    }, 120_000);
  }

  for (const to of ['pptx', 'odp'] as const) {
    it(`pdf to ${to} makes one slide per page with the picture`, async () => {
      const { files } = await convertWith(libreoffice, 'pdf', to, pdf);
      const entries = [...(await zipEntries(files[0] as string)).keys()];
      const slides = entries.filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n));
      if (to === 'pptx') expect(slides).toHaveLength(2);
      const report = await measureFidelity({ from: 'pdf', to, source: pdf, outputs: files });
      const byName = Object.fromEntries(report.measures.map((m) => [m.name, m]));
      expect(byName.pages).toMatchObject({ source: 2, output: 2, ok: true });
      expect(byName.images?.ok).toBe(true);
      expect(byName.words_kept?.output).toBeGreaterThanOrEqual(0.95);
    }, 120_000);
  }

  it('makes a PDF past the layout budget from its text, and says so', { timeout: 240_000 }, async () => {
    const lines = Array.from({ length: LAYOUT_PAGE_BUDGET + 5 }, (_, i) => `Long report page ${i + 1}`);
    const long = await textPdf(dir, lines, 'long.pdf');
    const edge = libreoffice.edges.find((e) => e.from === 'pdf' && e.to === 'docx');
    const ctx = stepContext();
    const outDir = tempDir('fileconv-long-');
    const { files } = await libreoffice.run({ edge: edge!, input: long, outDir, options: {} }, ctx);
    expect(ctx.logs.join('\n')).toContain(
      `(mode text), not its layout: ${LAYOUT_PAGE_BUDGET + 5} pages, past the layout import's budget of ${LAYOUT_PAGE_BUDGET}`,
    );
    const back = await renderBack('docx', files[0] as string);
    const text = pdfText(back);
    expect(text).toContain('Long report page 1');
    expect(text).toContain(`Long report page ${LAYOUT_PAGE_BUDGET + 5}`);
  });

  it('reports an encrypted PDF as ENCRYPTED_DOCUMENT', async () => {
    const locked = await encryptedPdf(pdf, join(dir, 'locked.pdf'));
    await expectCode(convertWith(libreoffice, 'pdf', 'docx', locked), 'ENCRYPTED_DOCUMENT');
  });

  it('reports a file that is no PDF as MALFORMED_DOCUMENT', async () => {
    const fake = join(dir, 'fake.pdf');
    copyFileSync(join(dir, 'report.html'), fake);
    await expectCode(convertWith(libreoffice, 'pdf', 'docx', fake), 'MALFORMED_DOCUMENT');
  });
});

describe('pdf to docx through the runner', () => {
  async function convert(options: Record<string, unknown>) {
    const events: RunEvent[] = [];
    const outDir = join(dir, `run-${Object.keys(options).join('-') || 'layout'}`);
    mkdirSync(outDir, { recursive: true });
    const result = await runConversion({
      input: pdf,
      from: 'pdf',
      to: 'docx',
      options,
      outDir,
      onEvent: (e) => events.push(e),
    });
    const media = [...(await zipEntries(result.files[0]!.path)).keys()].filter((n) =>
      n.startsWith('word/media/'),
    );
    return { result, events, media, timeline: events.map((e) => e.message).join('\n') };
  }

  it('plans the layout import for every target by default, and the text route for mode text', async () => {
    const { engines } = await loadCatalog();
    for (const to of ['docx', 'odt', 'rtf', 'pptx', 'odp']) {
      expect(planConversion('pdf', to, engines)?.steps.map((s) => s.engines[0])).toEqual(['libreoffice']);
    }
    for (const to of ['docx', 'odt', 'rtf']) {
      const text = planConversion('pdf', to, engines, { mode: 'text' });
      expect(text?.steps[0]?.engines[0]).toBe('poppler');
      expect(planConversion('pdf', to, engines, { ocr: true })?.steps[0]?.engines).toContain('tesseract');
    }
  });

  it('runs the layout import by default and says so in the timeline', async () => {
    const { result, media, timeline } = await convert({});
    expect(result.plan.steps.map((s) => s.engines[0])).toEqual(['libreoffice']);
    expect(timeline).toContain('layout mode');
    expect(media).toHaveLength(1);
  }, 120_000);

  it('takes the text path for mode text: flowing words, no picture', async () => {
    const { result, media, timeline } = await convert({ mode: 'text' });
    expect(result.plan.steps.map((s) => `${s.from}-${s.to}`)).toEqual(['pdf-txt', 'txt-docx']);
    expect(timeline).toContain('the options route this conversion through pdf -(poppler)-> txt');
    expect(media).toHaveLength(0);
    const report = await measureFidelity({
      from: 'pdf',
      to: 'docx',
      source: pdf,
      outputs: [result.files[0]!.path],
    });
    expect(report.measures.find((m) => m.name === 'words_kept')?.ok).toBe(true);
  }, 120_000);

  it('refuses an unknown mode before running anything', async () => {
    await expectCode(convert({ mode: 'columns' }), 'INVALID_REQUEST');
  });
});

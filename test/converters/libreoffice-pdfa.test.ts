import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pdfaShortcomings } from '../../converters/_pdfa.js';
import ghostscript from '../../converters/ghostscript.js';
import libreoffice from '../../converters/libreoffice.js';
import { loadConverters } from '../../src/engine/registry.js';
import { planWithOptions } from '../../src/plan/options.js';
import { fixture } from '../detect/helpers.js';
import { unoPython } from '../helpers/locked-office.js';
import { convertWith, pdfText } from '../helpers/office.js';
import { expectCode, runStep, stepContext, tempDir } from '../helpers/step.js';
import { textPdf } from './_image-samples.js';

/**
 * PDF/A-2b straight from office documents (LibreOffice's own PDF/A export), with the document
 * information set at the same time: read back with poppler and qpdf, never with our own code.
 */

function xmp(pdf: string): string {
  return execFileSync('pdfinfo', ['-meta', pdf], { encoding: 'utf8' });
}

function info(pdf: string): string {
  return execFileSync('pdfinfo', ['-enc', 'UTF-8', pdf], { encoding: 'utf8' });
}

function outputIntents(pdf: string): unknown {
  const object = (id: string) => {
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=qpdf', `--json-object=${id}`, pdf], { encoding: 'utf8' }),
    );
    return Object.values(json.qpdf[1] as Record<string, { value: Record<string, unknown> }>)[0]!.value;
  };
  const root = String(object('trailer')['/Root']).split(' ')[0]!;
  return object(root)['/OutputIntents'];
}

function expectPdfA2b(pdf: string): void {
  const meta = xmp(pdf);
  expect(meta).toMatch(/<pdfaid:part>2<|pdfaid:part=['"]2['"]/);
  expect(meta).toMatch(/<pdfaid:conformance>B<|pdfaid:conformance=['"]B['"]/);
  expect(Array.isArray(outputIntents(pdf))).toBe(true);
  const fonts = execFileSync('pdffonts', [pdf], { encoding: 'utf8' }).split('\n').slice(2).filter(Boolean);
  for (const row of fonts) expect(row).toMatch(/\s+yes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
  expect(execFileSync('qpdf', ['--check', pdf], { encoding: 'utf8' })).toMatch(
    /No syntax or stream encoding errors/,
  );
}

describe.skipIf(!unoPython)('pdfa: "2b" from office documents (LibreOffice; skipped: no python3-uno)', () => {
  it('DOCX, ODT and XLSX to PDF/A-2b: identification, output intent, fonts embedded, text kept', {
    timeout: 240_000,
  }, async () => {
    for (const [format, name] of [
      ['docx', 'document.docx'],
      ['odt', 'document.odt'],
      ['xlsx', 'sheet.xlsx'],
    ] as const) {
      const { files, leftover } = await convertWith(libreoffice, format, 'pdf', fixture(name), {
        pdfa: '2b',
      });
      expect(leftover).toEqual([]);
      expectPdfA2b(files[0]!);
      expect(pdfText(files[0]!).trim().length, format).toBeGreaterThan(0);
    }
  });

  it('sets title, author, subject and keywords in any script, the same in Info and in the XMP', {
    timeout: 120_000,
  }, async () => {
    const asked = {
      pdfa: '2b',
      title: 'Résumé «annuel» 2026 — ①',
      author: 'Анна Zoë',
      subject: 'Αρχείο',
      keywords: 'archive, 書類',
    };
    const { files } = await convertWith(libreoffice, 'docx', 'pdf', fixture('document.docx'), asked);
    const pdf = files[0]!;
    expectPdfA2b(pdf);
    const plain = info(pdf);
    expect(plain).toMatch(/^Title:\s+Résumé «annuel» 2026 — ①$/m);
    expect(plain).toMatch(/^Author:\s+Анна Zoë$/m);
    expect(plain).toMatch(/^Subject:\s+Αρχείο$/m);
    expect(plain).toMatch(/^Keywords:\s+archive, 書類$/m);
    const meta = xmp(pdf);
    expect(meta).toMatch(/<dc:title>[\s\S]*Résumé «annuel» 2026 — ①[\s\S]*<\/dc:title>/);
    expect(meta).toMatch(/<dc:creator>[\s\S]*Анна Zoë[\s\S]*<\/dc:creator>/);
    expect(meta).toMatch(/<dc:description>[\s\S]*Αρχείο[\s\S]*<\/dc:description>/);
    expect(meta).toMatch(/<pdf:Keywords>archive, 書類<\/pdf:Keywords>/);
    expect(await pdfaShortcomings(pdf, stepContext(), asked)).toEqual([]);
  });

  it('refuses text LibreOffice would escape twice in the XMP, before it runs', async () => {
    const e = await expectCode(
      convertWith(libreoffice, 'docx', 'pdf', fixture('document.docx'), {
        pdfa: '2b',
        author: 'Smith & Sons',
      }),
      'INVALID_REQUEST',
    );
    expect(e.message).toMatch(/option author cannot be given with pdfa here: LibreOffice 7.4 escapes/);
  });

  it('document information without pdfa is written by the export too', { timeout: 120_000 }, async () => {
    const { files } = await convertWith(libreoffice, 'odt', 'pdf', fixture('document.odt'), {
      title: 'Только заголовок',
    });
    expect(info(files[0]!)).toMatch(/^Title:\s+Только заголовок$/m);
  });
});

describe('the route of an office document to PDF/A', () => {
  it('is one LibreOffice step that takes pdfa and the document information, with no Ghostscript pass', async () => {
    const { plan } = planWithOptions(
      { from: 'docx', to: 'pdf', options: { pdfa: '2b', title: 'T', author: 'A' } },
      await loadConverters(),
    );
    expect(plan.steps.map((s) => [s.from, s.to, s.engines[0]])).toEqual([['docx', 'pdf', 'libreoffice']]);
  });
});

describe('pdfa with document information on a PDF (Ghostscript)', () => {
  it('keeps ASCII fields in Info and XMP alike', { timeout: 60_000 }, async () => {
    const pdf = await textPdf(tempDir(), ['Archive with a title']);
    const asked = { pdfa: '2b', title: 'Annual report 2026, final: 100% & more', author: 'Ann Author' };
    const { files } = await runStep(ghostscript, 'pdf', 'pdf', pdf, asked);
    expect(info(files[0]!)).toMatch(/^Title:\s+Annual report 2026, final: 100% & more$/m);
    expect(xmp(files[0]!)).toMatch(
      /<dc:title>[\s\S]*Annual report 2026, final: 100% &amp; more[\s\S]*<\/dc:title>/,
    );
    expect(await pdfaShortcomings(files[0]!, stepContext(), asked)).toEqual([]);
  });

  it('refuses other text before Ghostscript runs, saying where it works', async () => {
    const pdf = await textPdf(tempDir(), ['Archive']);
    const e = await expectCode(
      runStep(ghostscript, 'pdf', 'pdf', pdf, { pdfa: '2b', title: 'Été (2026)' }),
      'INVALID_REQUEST',
    );
    expect(e.message).toMatch(
      /title cannot be given with pdfa here: on a PDF, Ghostscript keeps only plain ASCII/,
    );
  });

  it('the check names document information missing from a PDF/A', async () => {
    const pdf = await textPdf(tempDir(), ['Plain']);
    const { files } = await runStep(ghostscript, 'pdf', 'pdf', pdf, { pdfa: '2b' });
    const missing = await pdfaShortcomings(files[0]!, stepContext(), { title: 'Never set' });
    expect(missing).toEqual([
      'the document information lacks the title asked',
      'the XMP lacks the title asked',
    ]);
  });
});

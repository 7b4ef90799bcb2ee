import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/qpdf.js';
import { runStep, tempDir } from '../helpers/step.js';
import { encryptedPdf, textPdf } from './_image-samples.js';

/** Watermarks, stamps and page numbers over the pages, and document information, checked with poppler and qpdf. */

const PAGES = ['Alpha page one', 'Bravo page two', 'Charlie page three'];

/** The text of page k as pdftotext reads it; -raw keeps a slanted line's letters in order. */
function pageText(path: string, k: number, ...args: string[]): string {
  return execFileSync('pdftotext', [...args, '-raw', '-f', String(k), '-l', String(k), path, '-'], {
    encoding: 'utf8',
  });
}

/** Letters only: a slanted watermark comes out one glyph a line. */
const squeeze = (s: string) => s.replace(/\s+/g, '');

function pageCount(path: string, ...args: string[]): number {
  const info = execFileSync('pdfinfo', [...args, path], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

function checkClean(path: string, password?: string): void {
  const r = spawnSync('qpdf', [...(password ? [`--password=${password}`] : []), '--check', path]);
  expect(r.status).toBe(0);
}

/** The trailer and the catalog as qpdf's JSON shows them. */
function catalog(path: string): { trailer: Record<string, unknown>; root: Record<string, unknown> } {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', path], { encoding: 'utf8' }));
  const objects = json.qpdf[1] as Record<string, { value: Record<string, unknown> }>;
  const trailer = objects.trailer!.value;
  return { trailer, root: objects[`obj:${trailer['/Root']}`]!.value };
}

describe('watermarks, stamps and page numbers (qpdf over an overlay drawn by rsvg-convert)', () => {
  it('lays a text watermark over every page; the pages keep their own text', async () => {
    const pdf = await textPdf(tempDir(), PAGES);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { watermark: 'CONFIDENTIAL DRAFT' });
    const out = files[0]!;
    checkClean(out);
    expect(pageCount(out)).toBe(3);
    PAGES.forEach((line, i) => {
      const text = squeeze(pageText(out, i + 1));
      expect(text).toContain('CONFIDENTIALDRAFT');
      expect(text).toContain(squeeze(line));
    });
  });

  it('draws hostile watermark text as text: no PostScript or SVG markup runs, no file is read', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 1));
    const hostile = `) show (/etc/passwd) (r) file 100 string readstring pop show </text><image href="/etc/passwd"/><text>&amp; ]]>`;
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { watermark: hostile, watermark_angle: 0 });
    const text = pageText(files[0]!, 1);
    expect(squeeze(text)).toContain(squeeze(hostile));
    expect(text).not.toMatch(/root:x:0/);
    checkClean(files[0]!);
  });

  it('watermarks only the pages kept, and opens a protected input with its password', async () => {
    const dir = tempDir();
    const locked = await encryptedPdf(await textPdf(dir, PAGES), join(dir, 'locked.pdf'));
    const { files } = await runStep(converter, 'pdf', 'pdf', locked, {
      password: 'secret',
      pages: '2-3',
      watermark: 'COPY',
      watermark_opacity: 0.5,
    });
    const out = files[0]!;
    expect(pageCount(out)).toBe(2);
    expect(squeeze(pageText(out, 1))).toMatch(/COPY.*|.*COPY/);
    expect(pageText(out, 1)).toContain('Bravo page two');
    expect(pageText(out, 2)).toContain('Charlie page three');
    expect(squeeze(pageText(out, 2))).toContain('COPY');
  });

  it('watermark and protection in one request: a protected PDF whose every page carries the watermark', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 2));
    // The options arrive with encryption first; encryption is still done last.
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      user_password: 'open sesame',
      watermark: 'DRAFT',
    });
    const out = files[0]!;
    expect(spawnSync('qpdf', ['--requires-password', out]).status).toBe(0);
    expect(spawnSync('pdftotext', [out, '-']).status).not.toBe(0);
    for (const k of [1, 2]) expect(squeeze(pageText(out, k, '-upw', 'open sesame'))).toContain('DRAFT');
    checkClean(out, 'open sesame');
  });

  it('numbers the pages in the format asked, from the number asked', async () => {
    const pdf = await textPdf(tempDir(), PAGES);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      page_numbers: true,
      page_numbers_format: 'Page {n} of {total}',
    });
    for (const k of [1, 2, 3]) expect(pageText(files[0]!, k)).toContain(`Page ${k} of 3`);
    const started = await runStep(converter, 'pdf', 'pdf', pdf, {
      page_numbers: true,
      page_numbers_start: 7,
      page_numbers_position: 'top-right',
    });
    for (const k of [1, 2, 3]) expect(pageText(started.files[0]!, k)).toMatch(new RegExp(`^${k + 6}$`, 'm'));
  });

  it('puts bottom-centre numbers at the bottom centre of the page as shown', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 1));
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { page_numbers: true });
    // pdftotext -bbox: where the number's word sits on the 612 x 792 page.
    const bbox = execFileSync('pdftotext', ['-bbox', files[0]!, '-'], { encoding: 'utf8' });
    const m = /xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">1<\/word>/.exec(bbox);
    expect(m).not.toBeNull();
    const [x0, y0, x1] = m!.slice(1).map(Number) as [number, number, number];
    expect(Math.abs((x0 + x1) / 2 - 306)).toBeLessThan(10);
    expect(y0).toBeGreaterThan(740);
  });

  it('draws a built-in stamp, with page numbers and a rotation after them', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 2));
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      rotate: 90,
      stamp: 'approved',
      page_numbers: true,
    });
    const out = files[0]!;
    const info = execFileSync('pdfinfo', ['-f', '1', '-l', '2', out], { encoding: 'utf8' });
    expect(info.match(/rot:\s+90/g)).toHaveLength(2);
    for (const k of [1, 2]) {
      expect(pageText(out, k)).toContain('APPROVED');
      expect(pageText(out, k)).toMatch(new RegExp(`^${k}$`, 'm'));
    }
    checkClean(out);
  });
});

describe('document information (qpdf --update-from-json)', () => {
  it('sets title, author, subject and keywords, in any script', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 1));
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      title: 'Rapport annuel (2026) \\ été',
      author: 'Анна',
      subject: 'Results',
      keywords: 'annual, report',
    });
    const info = execFileSync('pdfinfo', [files[0]!], { encoding: 'utf8' });
    expect(info).toMatch(/^Title:\s+Rapport annuel \(2026\) \\ été$/m);
    expect(info).toMatch(/^Author:\s+Анна$/m);
    expect(info).toMatch(/^Subject:\s+Results$/m);
    expect(info).toMatch(/^Keywords:\s+annual, report$/m);
    checkClean(files[0]!);
  });

  it('strips the information, the XMP packet and every earlier revision', async () => {
    const dir = tempDir();
    // A PDF whose title is in its XMP and in two revisions: the first written by Ghostscript,
    // the second an incremental update appended by hand, as editors write them.
    const base = join(dir, 'base.pdf');
    execFileSync('gs', [
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-q',
      '-sDEVICE=pdfwrite',
      `-sOutputFile=${base}`,
      await textPdf(dir, PAGES.slice(0, 1)),
      '-c',
      '[ /Title (Old Secret Title) /Author (Old Secret Author) /DOCINFO pdfmark',
    ]);
    const classic = join(dir, 'classic.pdf');
    execFileSync('qpdf', ['--object-streams=disable', base, classic]);
    const { trailer } = catalog(classic);
    const body = readFileSync(classic);
    const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(body.toString('latin1'))![1];
    const offset = statSync(classic).size;
    const object = '900 0 obj\n<< /Title (Revised Secret Title) >>\nendobj\n';
    const xref = offset + object.length;
    appendFileSync(
      classic,
      `${object}xref\n900 1\n${String(offset).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 901 /Root ${trailer['/Root']} /Info 900 0 R /Prev ${prev} >>\nstartxref\n${xref}\n%%EOF\n`,
    );
    expect(execFileSync('pdfinfo', [classic], { encoding: 'utf8' })).toContain('Revised Secret Title');
    expect(readFileSync(classic, 'latin1')).toContain('Old Secret Title');
    expect(catalog(classic).root['/Metadata']).toBeDefined();

    const { files } = await runStep(converter, 'pdf', 'pdf', classic, { strip_metadata: true });
    const out = files[0]!;
    const bytes = readFileSync(out, 'latin1');
    for (const old of ['Old Secret', 'Revised Secret', 'x:xmpmeta']) expect(bytes).not.toContain(old);
    const after = catalog(out);
    expect(after.trailer['/Info']).toBeUndefined();
    expect(after.root['/Metadata']).toBeUndefined();
    expect(pageText(out, 1)).toContain('Alpha page one');
    checkClean(out);
  });
});

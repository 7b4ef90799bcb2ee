import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * Inputs of a merge, made with real tools (Ghostscript, qpdf, pandoc, ImageMagick), and the
 * independent checks of a merged PDF (poppler's pdfinfo and pdftotext, qpdf's JSON and --check).
 */

export interface MergeSample {
  path: string;
  name: string;
  /** Pages it becomes. */
  pages: number;
  /** Words on its first page (none for the picture). */
  words?: string;
}

const GS = ['-dSAFER', '-dBATCH', '-dNOPAUSE', '-dNOPROMPT', '-q', '-sDEVICE=pdfwrite'];

/** Two pages with a bookmark on each, written by Ghostscript from PostScript pdfmarks. */
function bookmarkedPdf(dir: string): MergeSample {
  const ps = join(dir, 'chapters.ps');
  writeFileSync(
    ps,
    `%!PS
[/Title (Chapter one) /Page 1 /View [/XYZ null null null] /OUT pdfmark
[/Title (Chapter two) /Page 2 /View [/XYZ null null null] /OUT pdfmark
/Helvetica findfont 24 scalefont setfont
72 700 moveto (Alpha chapter page) show showpage
72 700 moveto (Bravo chapter page) show showpage
`,
  );
  const path = join(dir, 'chapters.pdf');
  execFileSync('gs', [...GS, `-sOutputFile=${path}`, ps]);
  return { path, name: 'chapters.pdf', pages: 2, words: 'Alpha chapter page' };
}

/** A one-page PDF with a filled text field named `field`, its objects written out and made whole by qpdf. */
function formPdf(dir: string, name: string, words: string, field: string): MergeSample {
  const content = `BT /F1 24 Tf 72 700 Td (${words}) Tj ET`;
  const source = `%PDF-1.7
1 0 obj << /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /NeedAppearances true /DA (/Helv 0 Tf 0 g) >> >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >> endobj
4 0 obj << /Type /Annot /Subtype /Widget /FT /Tx /T (${field}) /V (filled) /DA (/F1 12 Tf 0 g) /Rect [100 600 300 630] /P 3 0 R /F 4 >> endobj
5 0 obj << /Length ${content.length} >> stream
${content}
endstream endobj
6 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj
trailer << /Root 1 0 R /Size 7 >>
%%EOF
`;
  const raw = join(dir, `${name}.txt`);
  writeFileSync(raw, source);
  const path = join(dir, name);
  try {
    // Exit 3: written, with warnings about the cross-reference table it rebuilt (there was none).
    execFileSync('qpdf', [raw, path], { stdio: 'pipe' });
  } catch (e) {
    if ((e as { status?: number }).status !== 3) throw e;
  }
  return { path, name, pages: 1, words };
}

function docx(dir: string): MergeSample {
  const md = join(dir, 'letter-source.md');
  writeFileSync(md, '# Delta letter\n\nDelta letter body words.\n');
  const path = join(dir, 'letter.docx');
  execFileSync('pandoc', [md, '-o', path]);
  return { path, name: 'letter.docx', pages: 1, words: 'Delta letter' };
}

function png(dir: string): MergeSample {
  const path = join(dir, 'receipt.png');
  execFileSync('convert', ['-size', '320x200', 'gradient:skyblue-white', path]);
  return { path, name: 'receipt.png', pages: 1 };
}

function markdown(dir: string): MergeSample {
  const path = join(dir, 'notes.md');
  writeFileSync(path, '# Echo notes\n\nEcho notes written in Markdown.\n');
  return { path, name: 'notes.md', pages: 1, words: 'Echo notes' };
}

/**
 * A 2-page PDF with bookmarks, a form PDF, a DOCX, a PNG, a Markdown file and a second form PDF
 * whose field has the same name as the first's.
 */
export function mergeSamples(dir: string): MergeSample[] {
  return [
    bookmarkedPdf(dir),
    formPdf(dir, 'form-a.pdf', 'Charlie form page', 'name'),
    docx(dir),
    png(dir),
    markdown(dir),
    formPdf(dir, 'form-b.pdf', 'Foxtrot form page', 'name'),
  ];
}

export function pdfPages(path: string): number {
  const info = execFileSync('pdfinfo', [path], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

export function pageText(path: string, page: number): string {
  return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), path, '-'], {
    encoding: 'utf8',
  });
}

export interface OutlineItem {
  title: string;
  page: number | null;
  kids: OutlineItem[];
}

/** The outline as qpdf reads it: titles and the pages they point at (from 1). */
export function outline(path: string): OutlineItem[] {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json=2', '--json-key=outlines', path], { encoding: 'utf8' }),
  ) as { outlines: { title: string; destpageposfrom1: number | null; kids: unknown[] }[] };
  const map = (items: typeof json.outlines): OutlineItem[] =>
    items.map((i) => ({
      title: i.title,
      page: i.destpageposfrom1,
      kids: map(i.kids as typeof json.outlines),
    }));
  return map(json.outlines);
}

/** The form fields' full names, as qpdf reads them. */
export function formFields(path: string): string[] {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json=2', '--json-key=acroform', path], { encoding: 'utf8' }),
  ) as { acroform: { fields: { fullname: string }[] } };
  return json.acroform.fields.map((f) => f.fullname);
}

/** `qpdf --check` output; throws when qpdf finds errors (exit 2). Warnings (exit 3) are returned. */
export function qpdfCheck(path: string): string {
  try {
    return execFileSync('qpdf', ['--check', path], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    const err = e as { status?: number; stdout?: string };
    if (err.status === 3) return `WARNINGS\n${err.stdout ?? ''}`;
    throw e;
  }
}

/** The page each input starts on (from 1), given the pages each becomes. */
export function startPages(samples: readonly MergeSample[]): number[] {
  let next = 1;
  return samples.map((s) => {
    const start = next;
    next += s.pages;
    return start;
  });
}

/**
 * What a merge of `samples` must be, checked by poppler and qpdf: the pages of all inputs, each
 * input's words on its first page, one bookmark per input at that page (the first PDF's own two
 * under it), both forms' fields, a clean `qpdf --check`.
 */
export function expectMerged(pdf: string, samples: readonly MergeSample[]): void {
  expect(pdfPages(pdf)).toBe(samples.reduce((n, s) => n + s.pages, 0));
  const starts = startPages(samples);
  samples.forEach((s, i) => {
    if (s.words) expect(pageText(pdf, starts[i]!)).toContain(s.words);
  });
  const items = outline(pdf);
  expect(items.map((i) => [i.title, i.page])).toEqual(
    samples.map((s, i) => [s.name.replace(/\.[^.]+$/, ''), starts[i]]),
  );
  expect(items[0]!.kids.map((k) => [k.title, k.page])).toEqual([
    ['Chapter one', 1],
    ['Chapter two', 2],
  ]);
  expect(formFields(pdf).sort()).toEqual(['name', 'name+1']);
  expect(qpdfCheck(pdf)).toContain('No syntax or stream encoding errors');
}

/** The samples in a folder of the test file's own, made before its tests and removed after. */
export function useMergeSamples(prefix: string): { dir(): string; samples(): MergeSample[] } {
  let dir: string | undefined;
  let samples: MergeSample[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    samples = mergeSamples(dir);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return { dir: () => dir!, samples: () => samples };
}

/** Every page's rotation, as pdfinfo reads its /Rotate; `password` opens a protected PDF. */
export function pageRotations(path: string, password?: string): number[] {
  const open = password === undefined ? [] : ['-upw', password];
  const pages = Number(
    /^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [...open, path], { encoding: 'utf8' }))?.[1],
  );
  const info = execFileSync('pdfinfo', [...open, '-f', '1', '-l', String(pages), path], { encoding: 'utf8' });
  return [...info.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

/** Every page's size in points, rounded, as pdfinfo reads them (`[595, 842]` for A4 portrait). */
export function pageSizes(path: string): [number, number][] {
  const pages = pdfPages(path);
  const info = execFileSync('pdfinfo', ['-f', '1', '-l', String(pages), path], { encoding: 'utf8' });
  return [...info.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => [
    Math.round(Number(m[1])),
    Math.round(Number(m[2])),
  ]);
}

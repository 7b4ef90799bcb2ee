import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConversion } from '../../src/run/runner.js';
import type { RunEvent } from '../../src/run/types.js';
import { cacheDir } from '../corpus/fetch.js';
import { tempDir } from '../helpers/step.js';

/*
 * Damaged PDFs made from PDFs others wrote (the real-world corpus: `npm run corpus`): one cut at
 * 80% of its length, one whose cross-reference table points 7 bytes off every object. Each is
 * converted, not refused; pages counted with pdfinfo, words with pdftotext, and the timeline says
 * which tool repaired it.
 */

const files = join(cacheDir(), 'files', 'upstream');
const MANUAL = join(files, 'epubcheck/epubcheck-4.2.6/docs/ePubCheck-4.0-Preview.pdf');
const FOUR = join(files, 'pikepdf/pikepdf-6.0.0+dfsg/tests/resources/fourpages.pdf');
const NOT_CACHED = !existsSync(MANUAL) || !existsSync(FOUR);

const pages = (pdf: string) =>
  Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))![1]);
const words = (pdf: string) =>
  execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).split(/\s+/).filter(Boolean).length;

function cut(source: string, dir: string): string {
  const bytes = readFileSync(source);
  const out = join(dir, 'cut.pdf');
  writeFileSync(out, bytes.subarray(0, Math.floor(bytes.length * 0.8)));
  return out;
}

/** Every offset of the classic cross-reference table moved 7 bytes on. */
function brokenXref(source: string, dir: string): string {
  const text = readFileSync(source).toString('latin1');
  const start = text.search(/[\r\n]xref[\r\n]/);
  const end = text.indexOf('trailer', start);
  const table = text
    .slice(start, end)
    .replace(
      /(\d{10})( \d{5} n)/g,
      (_, o: string, rest: string) => `${String(Number(o) + 7).padStart(10, '0')}${rest}`,
    );
  const out = join(dir, 'xref.pdf');
  writeFileSync(out, Buffer.from(text.slice(0, start) + table + text.slice(end), 'latin1'));
  return out;
}

async function convert(input: string, to: string) {
  const events: RunEvent[] = [];
  const dir = tempDir();
  const r = await runConversion({
    input,
    from: 'pdf',
    to,
    outDir: join(dir, 'o'),
    onEvent: (e) => events.push(e),
  });
  return { path: r.files[0]!.path, events };
}

describe.skipIf(NOT_CACHED)('damaged PDFs repaired before refusal (corpus files; npm run corpus)', () => {
  it('a PDF cut at 80%: qpdf cannot, Ghostscript recovers every page, and the step runs on its copy', async () => {
    const dir = tempDir();
    const damaged = cut(MANUAL, dir);
    // As it is, the damaged file cannot be read by poppler or qpdf.
    expect(() => execFileSync('qpdf', ['--check', damaged], { stdio: 'ignore' })).toThrow();
    const pdf = await convert(damaged, 'pdf');
    expect(pages(pdf.path)).toBe(pages(MANUAL));
    expect(words(pdf.path)).toBeGreaterThan(100);
    const repaired = pdf.events.find((e) => e.kind === 'repaired');
    expect(repaired?.message).toMatch(/repaired by ghostscript, 7 page\(s\) recovered/);
    const txt = await convert(damaged, 'txt');
    expect(readFileSync(txt.path, 'utf8').split(/\s+/).filter(Boolean).length).toBeGreaterThan(100);
    expect(txt.events.some((e) => e.kind === 'repaired')).toBe(true);
  });

  it('a broken cross-reference table: qpdf rebuilds it, every page and word kept, and says so', async () => {
    const dir = tempDir();
    const damaged = brokenXref(FOUR, dir);
    // qpdf --check exits 3: it reads the file only by rebuilding the table.
    let status = 0;
    try {
      execFileSync('qpdf', ['--check', damaged], { stdio: 'ignore' });
    } catch (e) {
      status = (e as { status: number }).status;
    }
    expect(status).toBe(3);
    const pdf = await convert(damaged, 'pdf');
    expect(pages(pdf.path)).toBe(4);
    expect(words(pdf.path)).toBe(words(FOUR));
    expect(pdf.events.map((e) => e.message).join('\n')).toMatch(
      /damaged: repaired by qpdf|qpdf repaired damage/,
    );
  });

  it('a file with no PDF left in it is still refused as malformed', async () => {
    const dir = tempDir();
    const stub = join(dir, 'stub.pdf');
    writeFileSync(stub, '%PDF-1.4\n1 0 obj\n<< /Type /Catalog');
    const error = await convert(stub, 'txt').catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('MALFORMED_DOCUMENT');
  });
});

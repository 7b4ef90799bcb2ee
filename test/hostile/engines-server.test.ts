import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textPdf } from '../converters/_image-samples.js';
import {
  downloadArtifact,
  filePart,
  get,
  type Json,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';
import { pngBomb } from './build.js';

/**
 * Attacks on the engines' operations sent through a started server (issue 38, classes 4, 6, 8, 9
 * and 10): OCR of a page too large to draw, passwords that look like options, SVG stamps that
 * refer outside themselves, failures that would blame the file or show an engine's own text, and
 * PDFs whose active content would pass through an operation.
 */

const has = (tool: string) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
const noQpdf = !has('qpdf');
const noGs = !has('gs');
const noOcr = !has('ocrmypdf');

let server: TestServer;
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
  removeDir(dir);
});

async function send(parts: Parameters<typeof post>[1]): Promise<Json> {
  const res = await post(`${server.url}/api/public/convert`, parts);
  if (res.status !== 202) return { status: res.status, ...res.json };
  return waitDone(server.url, res.json.request_id as string, 180_000);
}

const download = (id: string, name: string) => downloadArtifact(server.url, id, 'pdf', dir, name);

async function timeline(id: string): Promise<string[]> {
  const res = await get(`${server.url}/api/public/requests/${id}/timeline`);
  return (res.json.events as { message: string }[]).map((e) => e.message);
}

/** What a client sees of a failure: never an engine's own words, a traceback or an address. */
async function expectNoEngineText(done: Json): Promise<void> {
  const seen = [done.error?.message ?? '', ...(await timeline(done.request_id))].join('\n');
  expect(seen).not.toMatch(/Traceback|0x[0-9a-f]{6,}|convert-im6|@ error\/|Maximum call stack|exited with/i);
}

/** A PDF of hand-written objects (1 is the catalog), its cross-reference table written by qpdf. */
function handWrittenPdf(name: string, objects: readonly string[]): string {
  const raw = join(dir, `${name}.raw`);
  writeFileSync(
    raw,
    `%PDF-1.7\n${objects.map((o, i) => `${i + 1} 0 obj\n${o}\nendobj\n`).join('')}trailer\n<< /Root 1 0 R /Size ${objects.length + 1} >>\n%%EOF\n`,
    'latin1',
  );
  const path = join(dir, name);
  // qpdf writes the cross-reference table the hand-written file lacks (exit 3: repaired).
  spawnSync('qpdf', [raw, path]);
  return path;
}

/** A one-page PDF with every kind of active content: OpenAction, document JavaScript, /AA, a Launch link. */
function activePdf(name: string): string {
  return handWrittenPdf(name, [
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 7 0 R /Names << /JavaScript << /Names [(x) 7 0 R] >> >> /AA << /WC 7 0 R >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [6 0 R] /AA << /O << /S /Launch /F (calc.exe) >> >> >>',
    '<< /Length 44 >>\nstream\nBT /F1 24 Tf 40 150 Td (Active page) Tj ET\nendstream',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Annot /Subtype /Link /Rect [40 140 200 180] /Border [0 0 0] /A << /S /Launch /F (cmd.exe) /Next 7 0 R >> >>',
    '<< /S /JavaScript /JS (app.alert\\(1\\)) >>',
  ]);
}

/** Active content an independent reader (qpdf's JSON of every object) finds in a PDF. */
function activeContent(pdf: string): string[] {
  const json = execFileSync('qpdf', ['--json=2', '--json-key=qpdf', pdf], { encoding: 'utf8' });
  const found: string[] = [];
  if (json.includes('"/OpenAction"')) found.push('OpenAction');
  if (json.includes('"/AA"')) found.push('AA');
  if (/"\/S": "\/JavaScript"/.test(json)) found.push('JavaScript');
  if (/"\/S": "\/Launch"/.test(json)) found.push('Launch');
  return found;
}

describe.skipIf(noQpdf || noOcr)('class 4: OCR of pages too large to draw', () => {
  it('refuses a 3000 x 3000 pt page before OCRmyPDF draws it', { timeout: 120_000 }, async () => {
    const pdf = join(dir, 'big.pdf');
    execFileSync('gs', [
      '-q',
      '-sDEVICE=pdfwrite',
      '-dDEVICEWIDTHPOINTS=3000',
      '-dDEVICEHEIGHTPOINTS=3000',
      '-dFIXEDMEDIA',
      '-o',
      pdf,
      '-c',
      'showpage',
    ]);
    const done = await send([
      metaPart({ conversion: 'pdf-pdf', options: { ocr: true } }),
      filePart('big.pdf', readFileSync(pdf)),
    ]);
    expect(done.status).toBe('failed');
    expect(done.error.code).toBe('INPUT_TOO_LARGE');
    const events = (await timeline(done.request_id)).join('\n');
    expect(events).toMatch(/16667 x 16667 pixels, over the limit of 100 megapixels/);
  });
});

describe.skipIf(noQpdf)('class 6: passwords that look like options', () => {
  it('protects and opens with passwords such as --, -o and --print=none', { timeout: 120_000 }, async () => {
    const pdf = await textPdf(dir, ['Secret page one', 'Two'], 'plain.pdf');
    const locked = await send([
      metaPart({ conversion: 'pdf-pdf', options: { user_password: '--', owner_password: '--print=none' } }),
      filePart('plain.pdf', readFileSync(pdf)),
    ]);
    expect(locked.status, JSON.stringify(locked.error)).toBe('succeeded');
    const out = await download(locked.request_id, 'locked.pdf');
    expect(spawnSync('qpdf', ['--requires-password', out]).status).toBe(0);
    const shown = spawnSync('qpdf', ['--show-encryption', '--password=--', out], { encoding: 'utf8' });
    expect(shown.stdout).toMatch(/User password = --/);
    // Opened with the password that looks like the end of qpdf's options, the PDF comes back unprotected.
    const opened = await send([
      metaPart({ conversion: 'pdf-pdf', options: { password: '--', rotate: 90 } }),
      filePart('locked.pdf', readFileSync(out)),
    ]);
    expect(opened.status, JSON.stringify(opened.error)).toBe('succeeded');
    const plain = await download(opened.request_id, 'opened.pdf');
    expect(spawnSync('qpdf', ['--requires-password', plain]).status).toBe(2);
    const dashO = await send([
      metaPart({ conversion: 'pdf-pdf', options: { user_password: '-o', title: '-o', watermark: '--' } }),
      filePart('plain.pdf', readFileSync(pdf)),
    ]);
    expect(dashO.status, JSON.stringify(dashO.error)).toBe('succeeded');
  });
});

describe('class 8: SVG stamps that refer outside themselves', () => {
  const svg = (body: string, prolog = '') =>
    Buffer.from(
      `${prolog}<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" ${body}/></svg>`,
    );
  const stamp = (bytes: Buffer) => ({
    name: 'stamp',
    filename: 'logo.svg',
    value: bytes,
    contentType: 'image/svg+xml',
  });
  it.each([
    ['a CSS escape in a style', svg('style="fill:u\\72l(http://127.0.0.1:9/x)"')],
    ['a CSS comment and escape in a presentation attribute', svg('fill="/**/\\75rl(file:///etc/passwd)"')],
    ['a character reference', svg('fill="&#x75;rl(http://127.0.0.1:9/)"')],
    ['a UTF-7 declaration', svg('', '<?xml version="1.0" encoding="UTF-7"?>')],
  ])('answers 400 for %s', async (_name, bytes) => {
    const pdf = await textPdf(dir, ['Page'], 'stamped.pdf');
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf' }),
      filePart('report.pdf', readFileSync(pdf)),
      stamp(bytes),
    ]);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.code).toBe('INVALID_REQUEST');
    expect(res.json.error.message).toMatch(/option stamp_image is an SVG (that refers|in the encoding)/);
  });
});

describe('class 9: failures that blame the file or show an engine', () => {
  it.skipIf(noQpdf)(
    'a page beyond the document is INVALID_REQUEST, naming it',
    { timeout: 60_000 },
    async () => {
      const pdf = await textPdf(dir, ['1', '2', '3', '4', '5', '6'], 'six.pdf');
      const done = await send([
        metaPart({ conversion: 'pdf-pdf', options: { pages: '2,9' } }),
        filePart('six.pdf', readFileSync(pdf)),
      ]);
      expect(done.status).toBe('failed');
      expect(done.error.code).toBe('INVALID_REQUEST');
      expect(done.error.message).toBe('option pages 9: the document has 6 pages');
    },
  );

  it.each([
    ['deep.json', 'json-yaml', Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
    ['huge.png', 'png-jpg', pngBomb(65_535, 65_535)],
  ])('%s is INPUT_TOO_LARGE with our own words', { timeout: 120_000 }, async (name, conversion, bytes) => {
    const done = await send([metaPart({ conversion }), filePart(name, bytes)]);
    expect(done.status).toBe('failed');
    expect(done.error.code).toBe('INPUT_TOO_LARGE');
    await expectNoEngineText(done);
  });

  it.skipIf(noQpdf || noOcr)(
    'an OCRmyPDF failure shows how it stopped: no traceback, address, path or engine words',
    { timeout: 180_000 },
    async () => {
      // A JPEG picture cut short: Ghostscript draws it, then OCRmyPDF's optimiser prints a Python
      // traceback reading it, and OCRmyPDF refuses its own output (exit 4) naming the output's path.
      const jpeg = `\xff\xd8\xff\xe0${'garbage'.repeat(50)}`;
      const pdf = handWrittenPdf('cut-jpeg.pdf', [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>',
        '<< /Length 30 >>\nstream\nq 200 0 0 200 0 0 cm /Im1 Do Q\nendstream',
        `<< /Type /XObject /Subtype /Image /Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n${jpeg}\nendstream`,
      ]);
      const done = await send([
        metaPart({ conversion: 'pdf-pdf', options: { ocr: true } }),
        filePart('scan.pdf', readFileSync(pdf)),
      ]);
      expect(done.status).toBe('failed');
      const events = await timeline(done.request_id);
      const failures = events.filter((m) => /^ocrmypdf failed/.test(m));
      expect(failures.length, events.join('\n')).toBeGreaterThan(0);
      for (const line of failures)
        expect(line).toMatch(/^ocrmypdf failed: ocrmypdf stopped with exit code \d+$/);
      const seen = [done.error.message, ...events].join('\n');
      expect(seen).not.toMatch(/File "|OSError|Truncated File Read|generated PDF is INVALID|WARNING/);
      expect(seen).not.toMatch(/(^|[\s(:'"=])\/(tmp|usr|var|home|root|data|work)\//m);
      await expectNoEngineText(done);
    },
  );
});

describe.skipIf(noQpdf || noGs)('class 10: active content through operations', () => {
  const cases = [
    ['a merge', 'merge'],
    ['compress', { compress: 'ebook' }],
    ['watermark', { watermark: 'DRAFT' }],
  ] as const;
  it.each(cases)('%s drops it by default and says so', { timeout: 120_000 }, async (_name, options) => {
    const active = activePdf('active.pdf');
    expect(activeContent(active)).toEqual(['OpenAction', 'AA', 'JavaScript', 'Launch']);
    const done = await run(active, options, {});
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(activeContent(await download(done.request_id, 'dropped.pdf'))).toEqual([]);
    expect((await timeline(done.request_id)).join('\n')).toMatch(/active content dropped: .*Launch action/);
  });
  it.each(cases)('%s keeps it with keep_active_content', { timeout: 120_000 }, async (_name, options) => {
    const done = await run(activePdf('kept.pdf'), options, { keep_active_content: true });
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(activeContent(await download(done.request_id, 'kept-out.pdf'))).toContain('Launch');
  });

  async function run(active: string, options: 'merge' | Record<string, unknown>, extra: Json): Promise<Json> {
    if (options === 'merge') {
      const plain = await textPdf(dir, ['Plain'], 'plain-merge.pdf');
      return send([
        metaPart({ to: 'pdf', options: extra }),
        filePart('active.pdf', readFileSync(active)),
        filePart('plain.pdf', readFileSync(plain)),
      ]);
    }
    return send([
      metaPart({ conversion: 'pdf-pdf', options: { ...options, ...extra } }),
      filePart('active.pdf', readFileSync(active)),
    ]);
  }
});

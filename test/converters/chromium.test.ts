import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPoolStatus, closeBrowserPool } from '../../converters/chromium/pool.js';
import chromium from '../../converters/chromium.js';
import { isFileconvError } from '../../src/errors/index.js';
import { runConversion } from '../../src/run/runner.js';
import { resetEngineSandbox } from '../../src/run/sandbox.js';
import {
  bundledFontAvailable,
  firstPagePng,
  isBandBlue,
  pdfFonts,
  pdfPages,
  pdfText,
  readBand,
  TABLE_WORDS,
  writeInvoiceHtml,
  writeInvoiceZip,
} from './_web-pages.js';

const installed = (await chromium.probe()).ok;
const dir = mkdtempSync(join(tmpdir(), 'fileconv-chromium-test-'));
let zip: string;
let html: string;

beforeAll(async () => {
  zip = await writeInvoiceZip(dir);
  html = writeInvoiceHtml(dir);
});

afterAll(async () => {
  await closeBrowserPool();
  rmSync(dir, { recursive: true, force: true });
});

async function convert(input: string, from: string, to: string, options: Record<string, unknown> = {}) {
  const name = `${from}-${to}-${Object.keys(options).join('-') || 'default'}`;
  const result = await runConversion({ input, from, to, options, outDir: dir, baseName: name });
  return { path: result.files[0]!.path, engines: result.plan.steps.map((s) => s.engines[0]) };
}

describe.skipIf(!installed)('chromium converter (Debian chromium not installed)', () => {
  it.skipIf(!bundledFontAvailable)(
    'prints the invoice ZIP as a browser draws it: band, grid, table words whole, bundled font',
    { timeout: 120_000 },
    async () => {
      const { path, engines } = await convert(zip, 'htmlzip', 'pdf');
      expect(engines).toEqual(['chromium']);
      const text = pdfText(path);
      expect(text).toContain('INVOICE 2026-042');
      for (const word of TABLE_WORDS) expect(text).toMatch(new RegExp(`\\b${word}\\b`));
      // The three columns sit on one line each, the grid's two cards side by side.
      expect(text).toMatch(/Widget\s+3\s+120\.00/);
      expect(text).toMatch(/Billed to\s+From/);
      // Print CSS applies, scripts do not run by default.
      expect(text).toContain('Printed copy');
      expect(text).not.toContain('Screen copy');
      expect(text).not.toContain('Scripted total');
      expect(pdfFonts(path)).toContain('DejaVuSerif-Bold');
      const band = await readBand(firstPagePng(path));
      expect(isBandBlue(band.band), `band colour ${band.band}`).toBe(true);
      expect(band.whiteInBand, 'white title letters on the band').toBeGreaterThan(10);
    },
  );

  it('runs the page scripts only with javascript=true, and waits for a selector', {
    timeout: 120_000,
  }, async () => {
    const { path } = await convert(zip, 'htmlzip', 'pdf', { javascript: true, wait_for: '#ready' });
    expect(pdfText(path)).toContain('Scripted total 414.50');
  });

  it('a single HTML file prints with its inline styles; LibreOffice stays the fallback', async () => {
    const result = await runConversion({
      input: html,
      from: 'html',
      to: 'pdf',
      outDir: dir,
      baseName: 'single',
    });
    expect(result.plan.steps[0]!.engines).toEqual(['chromium', 'libreoffice']);
    const path = result.files[0]!.path;
    expect(pdfText(path)).toMatch(/Widget\s+3\s+120\.00/);
    expect(isBandBlue((await readBand(firstPagePng(path))).band)).toBe(true);
  });

  it('paper, landscape, page ranges, header and footer templates', { timeout: 120_000 }, async () => {
    const long = join(dir, 'long.html');
    const paragraphs = Array.from({ length: 120 }, (_, i) => `<p>Paragraph ${i + 1}</p>`).join('\n');
    writeFileSync(long, `<!DOCTYPE html><html><body>${paragraphs}</body></html>`);
    const all = await convert(long, 'html', 'pdf', {
      paper: 'Letter',
      landscape: true,
      footer_template:
        '<div style="font-size:9px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
    });
    const info = pdfPages(all.path);
    expect(info.width).toBeCloseTo(792, 0);
    expect(info.height).toBeCloseTo(612, 0);
    expect(info.pages).toBeGreaterThan(2);
    expect(pdfText(all.path)).toContain(`Page 2 of ${info.pages}`);
    const some = await convert(long, 'html', 'pdf', { pages: '2', paper: '100x150mm' });
    const picked = pdfPages(some.path);
    expect(picked.pages).toBe(1);
    expect(picked.width).toBeCloseTo((100 / 25.4) * 72, 0);
  });

  it('draws full-page images at the viewport width and device scale factor', {
    timeout: 120_000,
  }, async () => {
    const png = await convert(zip, 'htmlzip', 'png');
    const meta = await sharp(png.path).metadata();
    expect(meta.width).toBe(1280);
    expect(isBandBlue((await readBand(png.path)).band)).toBe(true);
    const webp = await convert(zip, 'htmlzip', 'webp', { viewport_width: 800, device_scale_factor: 2 });
    const webpMeta = await sharp(webp.path).metadata();
    expect(webpMeta.format).toBe('webp');
    expect(webpMeta.width).toBe(1600);
    const jpg = await convert(html, 'html', 'jpg', { quality: 70 });
    expect((await sharp(jpg.path).metadata()).format).toBe('jpeg');
  });

  it('Markdown prints through HTML with the stylesheet: tables whole, h1 page breaks on request', {
    timeout: 120_000,
  }, async () => {
    const md = join(dir, 'report.md');
    writeFileSync(
      md,
      '# Summary\n\nSome *text*.\n\n| Region | Units | Revenue |\n|---|---:|---:|\n| North | 1200 | 48,000 |\n\n```\ncode block\n```\n\n# Details\n\nMore.\n',
    );
    const plain = await convert(md, 'md', 'pdf');
    expect(plain.engines).toEqual(['pandoc-chromium']);
    expect(pdfText(plain.path)).toMatch(/North\s+1200\s+48,000/);
    expect(pdfPages(plain.path).pages).toBe(1);
    const broken = await convert(md, 'md', 'pdf', { break_before_h1: true });
    expect(pdfPages(broken.path).pages).toBe(2);
    const org = join(dir, 'notes.org');
    writeFileSync(org, '* Notes\n\n| Item | Count |\n|------+-------|\n| Widget | 3 |\n');
    expect(pdfText((await convert(org, 'org', 'pdf')).path)).toMatch(/Widget\s+3/);
  });

  it('a ZIP without index.html fails with a clear error, and the browser keeps working', async () => {
    const bad = join(dir, 'bad.zip');
    const { zipOutputs } = await import('../../src/run/zip.js');
    await zipOutputs(
      [
        { path: html, name: 'page.html' },
        { path: html, name: 'other/page.html' },
      ],
      bad,
    );
    const error = await runConversion({ input: bad, from: 'htmlzip', to: 'pdf', outDir: dir }).catch(
      (e) => e,
    );
    // Without index.html the bytes are a plain ZIP: refused before the browser is reached.
    expect(isFileconvError(error) && error.code).toBe('FORMAT_MISMATCH');
    expect(String(error.message)).toMatch(/ZIP archive/);
    const after = await convert(html, 'html', 'pdf');
    expect(pdfText(after.path)).toContain('INVOICE');
  });

  it('replaces the browser after the configured number of conversions', { timeout: 120_000 }, async () => {
    await closeBrowserPool();
    process.env.FILECONV_CHROMIUM_MAX_CONVERSIONS = '2';
    try {
      for (let i = 0; i < 3; i++) await convert(html, 'html', 'png');
      const status = browserPoolStatus();
      expect(status.restarts['conversion limit']).toBe(1);
      expect(status.running).toBe(true);
      expect(status.mode).toMatch(/sandbox/);
    } finally {
      delete process.env.FILECONV_CHROMIUM_MAX_CONVERSIONS;
    }
  });

  it('a crashed browser is replaced and the next page prints', { timeout: 120_000 }, async () => {
    await convert(html, 'html', 'png');
    const { profile } = browserPoolStatus();
    const main = execFileSync('pgrep', ['-o', '-f', `user-data-dir=${profile}`], {
      encoding: 'utf8',
    }).trim();
    process.kill(Number(main), 'SIGKILL');
    const after = await convert(html, 'html', 'pdf');
    expect(pdfText(after.path)).toContain('INVOICE');
    expect(browserPoolStatus().restarts.crashed).toBe(1);
  });

  it('refuses every request leaving the page by interception alone (no network namespace)', {
    timeout: 120_000,
  }, async () => {
    const hits: string[] = [];
    const listener = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('x');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}`;
    const page = join(dir, 'calls-out.html');
    writeFileSync(
      page,
      `<!DOCTYPE html><html><head><link rel="stylesheet" href="${url}/css"></head><body>
<img src="${url}/img"><img src="/bad%E0%A4%A.png"><iframe src="${url}/frame"></iframe>
<script>fetch('${url}/fetch').catch(() => {}); new WebSocket('ws://127.0.0.1:${port}/ws');</script></body></html>`,
    );
    process.env.FILECONV_ENGINE_SANDBOX = 'off';
    resetEngineSandbox();
    await closeBrowserPool();
    const logs: string[] = [];
    try {
      await runConversion({
        input: page,
        from: 'html',
        to: 'pdf',
        options: { javascript: true, wait_ms: 500 },
        outDir: dir,
        baseName: 'calls-out',
        onEvent: (e) => logs.push(e.message),
      });
    } finally {
      delete process.env.FILECONV_ENGINE_SANDBOX;
      resetEngineSandbox();
      await closeBrowserPool();
      listener.close();
    }
    expect(hits).toEqual([]);
    const refused = logs.map((m) => /refused (\d+) request/.exec(m)?.[1]).find(Boolean);
    expect(Number(refused)).toBeGreaterThanOrEqual(4);
  });
});

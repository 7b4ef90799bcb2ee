import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromium from '../../converters/chromium.js';
import { fetchToFile } from '../../src/intake/url.js';
import { resolveServeConfig } from '../../src/server/config.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import {
  bundledFontAvailable,
  firstPagePng,
  invoiceHtml,
  isBandBlue,
  pdfFonts,
  pdfText,
  readBand,
  TABLE_WORDS,
  writeInvoiceZip,
} from '../converters/_web-pages.js';
import { get, metaPart, post, removeDir, tempDir, waitDone } from './helpers.js';

/**
 * Web pages through the started server (an uploaded ZIP, and a source_url fetched by the URL
 * intake and rendered from the saved copy) and through the CLI, checked like a person would: the
 * text layer and the pixels of the PDF.
 */
const installed = (await chromium.probe()).ok;
const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const dir = tempDir('fileconv-web-pages-');
let server: RunningServer;
let site: Server;
let siteUrl: string;
let siteHits: string[] = [];

async function download(done: { artifacts: { download: string }[] }, name: string): Promise<string> {
  const location = String((await get(done.artifacts[0]!.download)).headers.location);
  const res = await request(location);
  const path = join(dir, name);
  writeFileSync(path, Buffer.from(await res.body.arrayBuffer()));
  return path;
}

/** `fileconv convert FILE --to pdf --json`: its exit code must be 0; returns its result line. */
async function cliToPdf(input: string): Promise<{ ok: boolean; key: string; outputs: string[] }> {
  const r = await execa('node', [BIN, 'convert', input, '--to', 'pdf', '--json'], {
    cwd: dir,
    reject: false,
    stdin: 'ignore',
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

async function expectInvoice(pdf: string): Promise<void> {
  const text = pdfText(pdf);
  for (const word of TABLE_WORDS) expect(text).toMatch(new RegExp(`\\b${word}\\b`));
  expect(text).toMatch(/Widget\s+3\s+120\.00/);
  const band = await readBand(firstPagePng(pdf));
  expect(isBandBlue(band.band), `band colour ${band.band}`).toBe(true);
  expect(band.whiteInBand).toBeGreaterThan(10);
}

describe.skipIf(!installed)(
  'web pages through the server and the CLI (Debian chromium not installed)',
  () => {
    beforeAll(async () => {
      const config = resolveServeConfig(
        { host: '127.0.0.1', port: '0', concurrency: '2', rateLimit: '0', dataDir: join(dir, 'data') },
        {},
      );
      // The public intake refuses loopback addresses, where this test's site lives; the same fetcher
      // with private addresses allowed (as the CLI has it) stands in for a public site.
      server = await startServer(config, {
        urlIntake: {
          fetch: (url, destDir, { signal }) => fetchToFile(url, destDir, { signal, allowPrivate: true }),
        },
      });
      site = createServer((req, res) => {
        siteHits.push(req.url ?? '');
        if (req.url === '/invoice') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(invoiceHtml(true));
        } else {
          res.writeHead(200, { 'content-type': 'text/css' });
          res.end('body { background: red; }');
        }
      });
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      const address = site.address();
      siteUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });

    afterAll(async () => {
      await server?.shutdown();
      await new Promise((resolve) => site?.close(resolve));
      removeDir(dir);
    });
    it.skipIf(!bundledFontAvailable)(
      'server: an uploaded web page ZIP becomes a PDF',
      { timeout: 120_000 },
      async () => {
        const zip = await writeInvoiceZip(dir);
        const res = await post(`${server.url}/api/public/convert`, [
          metaPart({
            conversion: 'htmlzip-pdf',
            options: { javascript: true, footer_template: '<span class="pageNumber"></span>' },
          }),
          { name: 'file', filename: 'invoice.zip', value: readFileSync(zip), contentType: 'application/zip' },
        ]);
        expect(res.status, res.text).toBe(202);
        const done = await waitDone(server.url, res.json.request_id, 120_000);
        expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
        const pdf = await download(done, 'server-invoice.pdf');
        await expectInvoice(pdf);
        expect(pdfText(pdf)).toContain('Scripted total 414.50');
        expect(pdfFonts(pdf)).toContain('DejaVuSerif-Bold');
      },
    );

    it('server: bad options are refused before any work', async () => {
      const res = await post(`${server.url}/api/public/convert`, [
        metaPart({ conversion: 'html-pdf', options: { paper: 'B99' } }),
        { name: 'file', filename: 'a.html', value: Buffer.from(invoiceHtml(true)), contentType: 'text/html' },
      ]);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('INVALID_REQUEST');
    });

    it('server: a source_url page renders from the fetched copy, never going online', {
      timeout: 120_000,
    }, async () => {
      siteHits = [];
      const res = await post(`${server.url}/api/public/convert`, [
        metaPart({ source_url: `${siteUrl}/invoice`, to: 'pdf' }),
      ]);
      expect(res.status, res.text).toBe(202);
      const done = await waitDone(server.url, res.json.request_id, 120_000);
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      expect(done.conversion).toBe('html-pdf');
      await expectInvoice(await download(done, 'url-invoice.pdf'));
      // One fetch by the intake; the browser asked the site for nothing.
      expect(siteHits).toEqual(['/invoice']);
    });

    it('CLI: fileconv convert invoice.html --to pdf', { timeout: 120_000 }, async () => {
      const html = join(dir, 'cli-invoice.html');
      writeFileSync(html, invoiceHtml(true));
      const line = await cliToPdf(html);
      expect(line).toMatchObject({ ok: true, key: 'html-pdf' });
      await expectInvoice(line.outputs[0]!);
    });

    it('CLI: fileconv convert notes.md --to pdf prints Markdown through the browser', {
      timeout: 120_000,
    }, async () => {
      const md = join(dir, 'notes.md');
      writeFileSync(md, '# Notes\n\n| Item | Count |\n|---|---:|\n| Widget | 3 |\n');
      const line = await cliToPdf(md);
      expect(pdfText(line.outputs[0]!)).toMatch(/Widget\s+3/);
    });
  },
);

/**
 * HTML to PDF, one-page invoices, three ways in the same run, interleaved document by document so
 * a machine whose load changes during the run weighs on all three alike:
 *
 * - api: through a started `fileconv serve` (upload, long-poll, 302, download): the whole path a
 *   client sees, on the server's warm browser.
 * - fresh: a warm Playwright browser of the same Chromium, opening a fresh context and page per
 *   document (`newContext`, `newPage`, `goto` the file, `pdf`; the close is not timed): the floor
 *   for a conversion that keeps documents apart.
 * - reused: one page of that browser loading every document (no isolation between them).
 *
 * The server is warmed with a few conversions first. Each document is preceded by a short pause
 * (a server between requests), the same for all three. Prints the medians and the ratios
 * `chromium: api / fresh` and `chromium-reused: api / reused`. `--rounds N` (default 3) repeats
 * the whole set; each round's figures are printed and the last lines are over every round.
 *
 *   tsx bench/chromium.ts [--rounds N] [--documents N]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_NAMES } from '../converters/chromium/launch.js';
import { DEFAULT_MARGIN } from '../converters/chromium/print.js';
import { findBinary } from '../src/run/binary.js';
import { invoiceHtml } from '../test/converters/_web-pages.js';
import { convertOverHttp, removeDir, startServe, tempDir } from './lib/serve.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, documents: { type: 'string', default: '15' } },
});
const ROUNDS = Number(values.rounds);
const DOCUMENTS = Number(values.documents);
const WARM_UP = 3;
const PAUSE_MS = 300;

const PDF = {
  format: 'A4',
  margin: { top: DEFAULT_MARGIN, right: DEFAULT_MARGIN, bottom: DEFAULT_MARGIN, left: DEFAULT_MARGIN },
  printBackground: true,
} as const;

function assertPdf(bytes: Buffer, what: string): void {
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error(`${what} is not a PDF`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function makeInputs(dir: string, count: number): string[] {
  return Array.from({ length: count }, (_, n) => {
    const path = join(dir, `invoice-${n}.html`);
    writeFileSync(path, invoiceHtml(true).replaceAll('2026-042', `2026-${String(100 + n)}`));
    return path;
  });
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function viaApi(url: string, input: string, dest: string): Promise<number> {
  const ms = await timed(() => convertOverHttp(url, 'html-pdf', input, 'invoice.html', dest));
  assertPdf(readFileSync(dest), dest);
  return ms;
}

async function viaFreshContext(browser: Browser, input: string): Promise<number> {
  let close: (() => Promise<void>) | undefined;
  const ms = await timed(async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    close = () => context.close();
    const page = await context.newPage();
    await page.goto(`file://${input}`, { waitUntil: 'load' });
    assertPdf(await page.pdf(PDF), 'fresh context');
  });
  await close?.();
  return ms;
}

async function viaReusedPage(page: Page, input: string): Promise<number> {
  return timed(async () => {
    await page.goto(`file://${input}`, { waitUntil: 'load' });
    assertPdf(await page.pdf(PDF), 'reused page');
  });
}

const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

const dir = tempDir('fileconv-bench-chromium-');
const server = await startServe(join(dir, 'data'), [], {}, { source: true });
const executablePath = findBinary(CHROMIUM_NAMES);
if (!executablePath) throw new Error('chromium not found');
const browser = await chromium.launch({
  executablePath,
  args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
});
try {
  for (const sub of ['inputs', 'out']) mkdirSync(join(dir, sub));
  const inputs = makeInputs(join(dir, 'inputs'), DOCUMENTS);
  const out = (name: string) => join(dir, 'out', name);
  const reused = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  for (let i = 0; i < WARM_UP; i++) {
    await viaApi(server.url, inputs[i]!, out('warm.pdf'));
    await viaFreshContext(browser, inputs[i]!);
    await viaReusedPage(reused, inputs[i]!);
  }
  const all = { api: [] as number[], fresh: [] as number[], reused: [] as number[] };
  for (let round = 1; round <= ROUNDS; round++) {
    const times = { api: [] as number[], fresh: [] as number[], reused: [] as number[] };
    for (const [i, input] of inputs.entries()) {
      await pause();
      times.api.push(await viaApi(server.url, input, out(`api-${i}.pdf`)));
      await pause();
      times.fresh.push(await viaFreshContext(browser, input));
      await pause();
      times.reused.push(await viaReusedPage(reused, input));
    }
    const [a, f, r] = [median(times.api), median(times.fresh), median(times.reused)];
    console.log(
      `round ${round}: api ${a.toFixed(0)} ms, fresh context ${f.toFixed(0)} ms, reused page ${r.toFixed(0)} ms: ` +
        `api/fresh ${(a / f).toFixed(2)}, api/reused ${(a / r).toFixed(2)}`,
    );
    all.api.push(...times.api);
    all.fresh.push(...times.fresh);
    all.reused.push(...times.reused);
  }
  const [a, f, r] = [median(all.api), median(all.fresh), median(all.reused)];
  console.log(
    `documents: ${DOCUMENTS} one-page HTML invoices to pdf, ${ROUNDS} round(s), ${PAUSE_MS} ms before each`,
  );
  console.log(`through the API (fileconv serve), p50:           ${a.toFixed(0)} ms`);
  console.log(`warm Playwright, fresh context and page, p50:     ${f.toFixed(0)} ms`);
  console.log(`warm Playwright, one reused page, p50:            ${r.toFixed(0)} ms`);
  console.log(
    `chromium: ${(a / f).toFixed(3)} (ours / baseline: API against a fresh context, target <= 1.0)`,
  );
  console.log(
    `chromium-reused: ${(a / r).toFixed(3)} (ours / baseline: API against a reused page, target <= 2.0)`,
  );
} finally {
  await browser.close();
  await server.stop();
  removeDir(dir);
}

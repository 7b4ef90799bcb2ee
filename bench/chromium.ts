/**
 * HTML to PDF, 15 invoices one after another: the median time of one page through the warm
 * browser (the real conversion path: runner, fresh context, interception, print) versus a cold
 * `chromium --headless --print-to-pdf` per file with a fresh profile, in the same run. The warm
 * browser is started before the timed pages; the cold baseline pays a browser start every file.
 * The figure is for pages back to back; a second line gives the median with a pause before each
 * page, as a server sees requests, when the context opened ahead is ready.
 *
 *   tsx bench/chromium.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_NAMES } from '../converters/chromium/launch.js';
import { closeBrowserPool, warmBrowser } from '../converters/chromium/pool.js';
import { findBinary } from '../src/run/binary.js';
import { runConversion } from '../src/run/runner.js';
import { invoiceHtml } from '../test/converters/_web-pages.js';

const FILES = 15;

function assertPdf(path: string): void {
  if (readFileSync(path).subarray(0, 5).toString('latin1') !== '%PDF-')
    throw new Error(`${path} is not a PDF`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function makeInputs(dir: string): string[] {
  return Array.from({ length: FILES }, (_, n) => {
    const path = join(dir, `invoice-${n}.html`);
    writeFileSync(path, invoiceHtml(true).replaceAll('2026-042', `2026-${String(100 + n)}`));
    return path;
  });
}

const PAUSE_MS = 1_000;

/** Pages one after another, or with a pause before each (a server between requests). */
async function viaWarmBrowser(inputs: string[], outDir: string, pauseMs = 0): Promise<number[]> {
  await warmBrowser();
  const times: number[] = [];
  for (const [i, input] of inputs.entries()) {
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const start = performance.now();
    const result = await runConversion({
      input,
      from: 'html',
      to: 'pdf',
      outDir,
      baseName: `warm-${pauseMs}-${i}`,
    });
    times.push(performance.now() - start);
    assertPdf(result.files[0]!.path);
  }
  return times;
}

function viaColdChromium(inputs: string[], outDir: string, scratch: string): number[] {
  const chromium = findBinary(CHROMIUM_NAMES);
  if (!chromium) throw new Error('chromium not found');
  const root = process.getuid?.() === 0;
  return inputs.map((input, i) => {
    const output = join(outDir, `cold-${i}.pdf`);
    const profile = join(scratch, `profile-${i}`);
    const start = performance.now();
    execFileSync(
      chromium,
      [
        '--headless',
        ...(root ? ['--no-sandbox'] : []),
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
        '--no-pdf-header-footer',
        `--print-to-pdf=${output}`,
        `file://${input}`,
      ],
      { stdio: 'ignore', timeout: 120_000 },
    );
    const took = performance.now() - start;
    assertPdf(output);
    return took;
  });
}

const dir = mkdtempSync(join(tmpdir(), 'fileconv-bench-chromium-'));
try {
  for (const sub of ['inputs', 'warm', 'cold', 'scratch']) mkdirSync(join(dir, sub));
  const inputs = makeInputs(join(dir, 'inputs'));
  const ours = median(await viaWarmBrowser(inputs, join(dir, 'warm')));
  const paused = median(await viaWarmBrowser(inputs, join(dir, 'warm'), PAUSE_MS));
  await closeBrowserPool();
  const baseline = median(viaColdChromium(inputs, join(dir, 'cold'), join(dir, 'scratch')));
  console.log(`files: ${FILES} one-page HTML invoices to pdf, one after another`);
  console.log(`warm browser, median per page:         ${ours.toFixed(0)} ms`);
  console.log(
    `warm browser, ${PAUSE_MS} ms between pages: ${paused.toFixed(0)} ms (${(paused / baseline).toFixed(3)} of baseline)`,
  );
  console.log(`cold chromium --print-to-pdf, median:  ${baseline.toFixed(0)} ms`);
  console.log(`chromium: ${(ours / baseline).toFixed(3)} (ours / baseline)`);
} finally {
  await closeBrowserPool();
  rmSync(dir, { recursive: true, force: true });
}

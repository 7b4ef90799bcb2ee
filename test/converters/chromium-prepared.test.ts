import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_CONCURRENCY, browserPoolStatus, closeBrowserPool } from '../../converters/chromium/pool.js';
import { warmPdfPages } from '../../converters/chromium/render.js';
import chromium from '../../converters/chromium.js';
import { runConversion } from '../../src/run/runner.js';
import { pdfText, writeInvoiceHtml } from './_web-pages.js';

/**
 * The contexts the warm browser prepares before requests arrive: each conversion still gets its
 * own (nothing of one document is seen by the next), they come back after a crash, none is left
 * behind, and shutdown takes them with the browser.
 */

const installed = (await chromium.probe()).ok;
const dir = mkdtempSync(join(tmpdir(), 'fileconv-chromium-prepared-'));
let invoice: string;

beforeAll(() => {
  invoice = writeInvoiceHtml(dir);
});

afterAll(async () => {
  await closeBrowserPool();
  rmSync(dir, { recursive: true, force: true });
});

let outputs = 0;
async function toPdf(input: string, options: Record<string, unknown> = {}): Promise<string> {
  const result = await runConversion({
    input,
    from: 'html',
    to: 'pdf',
    options,
    outDir: dir,
    baseName: `out-${outputs++}`,
  });
  return result.files[0]!.path;
}

/** The browser processes started with this profile (the main one and its children). */
function processesOf(profile: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `user-data-dir=${profile}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function killBrowser(): string {
  const { profile } = browserPoolStatus();
  const main = execFileSync('pgrep', ['-o', '-f', `user-data-dir=${profile}`], { encoding: 'utf8' }).trim();
  process.kill(Number(main), 'SIGKILL');
  return profile!;
}

async function settled(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** A page that reports what earlier pages left (storage, cookie), then leaves its own mark. */
function storagePage(name: string, mark: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `<!DOCTYPE html><html><body><p id="out">pending</p><script>
const seen = [
  'local=' + (localStorage.getItem('mark') ?? 'none'),
  'session=' + (sessionStorage.getItem('mark') ?? 'none'),
  'cookie=' + (document.cookie || 'none'),
];
localStorage.setItem('mark', '${mark}');
sessionStorage.setItem('mark', '${mark}');
document.cookie = 'mark=${mark}; max-age=3600; path=/';
seen.push('mine=' + localStorage.getItem('mark') + '/' + document.cookie);
document.getElementById('out').textContent = seen.join(' ');
document.body.setAttribute('data-done', '1');
</script></body></html>`,
  );
  return path;
}

describe.skipIf(!installed)('chromium prepared contexts (Debian chromium not installed)', () => {
  it('keeps contexts ready after conversions, up to the engine concurrency, and leaves none behind', {
    timeout: 180_000,
  }, async () => {
    await warmPdfPages();
    expect(browserPoolStatus().prepared).toBe(BROWSER_CONCURRENCY);
    expect(browserPoolStatus().contexts).toBe(BROWSER_CONCURRENCY);
    // Two at once, then a few one after another: each prints on its own context.
    const both = await Promise.all([toPdf(invoice), toPdf(invoice)]);
    for (const path of both) expect(pdfText(path)).toMatch(/Widget\s+3\s+120\.00/);
    for (let i = 0; i < 3; i++) expect(pdfText(await toPdf(invoice))).toContain('INVOICE');
    // Used contexts are closed in the background; what stays open is the prepared ones.
    await warmPdfPages();
    await settled(() => browserPoolStatus().contexts <= BROWSER_CONCURRENCY);
    expect(browserPoolStatus().contexts).toBe(BROWSER_CONCURRENCY);
    expect(browserPoolStatus().prepared).toBe(BROWSER_CONCURRENCY);
  });

  it('two documents one after the other share no storage and no cookie', { timeout: 180_000 }, async () => {
    const options = { javascript: true, wait_for: 'body[data-done]' };
    const first = pdfText(await toPdf(storagePage('first.html', 'first'), options));
    // The first page could store and read back its own marks: storage works in these contexts.
    expect(first).toContain('local=none session=none cookie=none');
    expect(first).toContain('mine=first/mark=first');
    const second = pdfText(await toPdf(storagePage('second.html', 'second'), options));
    expect(second).toContain('local=none session=none cookie=none');
    expect(second).toContain('mine=second/mark=second');
    expect(second).not.toContain('first');
  });

  it('a page written into the prepared page reads as one navigated to: address, UTF-8, UTF-16 with a BOM', {
    timeout: 180_000,
  }, async () => {
    const body =
      '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body>' +
      '<p>Grüße aus Köln, café à 3 €</p><a href="page2.html">next</a></body></html>';
    const utf8 = join(dir, 'utf8.html');
    writeFileSync(utf8, body);
    const utf16 = join(dir, 'utf16.html');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]));
    // Scripts on: the page is navigated to, as a browser loads it.
    const navigated = pdfText(await toPdf(utf8, { javascript: true }));
    expect(navigated).toContain('Grüße aus Köln, café à 3 €');
    for (const input of [utf8, utf16]) expect(pdfText(await toPdf(input))).toBe(navigated);
    // The page has the same address either way (the footer prints it).
    const footer = { footer_template: '<span class="url" style="font-size:8px"></span>' };
    expect(pdfText(await toPdf(utf8, footer))).toBe(
      pdfText(await toPdf(utf8, { ...footer, javascript: true })),
    );
  });

  it('after the browser crashes, with contexts prepared or being prepared, the next page prints', {
    timeout: 180_000,
  }, async () => {
    await warmPdfPages();
    const before = browserPoolStatus().restarts.crashed ?? 0;
    // Killed with its contexts ready.
    const old = killBrowser();
    expect(pdfText(await toPdf(invoice))).toContain('INVOICE');
    expect(browserPoolStatus().restarts.crashed).toBe(before + 1);
    await settled(() => processesOf(old).length === 0);
    expect(processesOf(old)).toEqual([]);
    // Killed right after a conversion, while the next contexts are being prepared.
    await toPdf(invoice);
    killBrowser();
    expect(pdfText(await toPdf(invoice))).toContain('INVOICE');
    expect(browserPoolStatus().restarts.crashed).toBe(before + 2);
    // The new browser prepares again, and nothing from the killed ones is left open.
    await warmPdfPages();
    await settled(() => browserPoolStatus().contexts <= BROWSER_CONCURRENCY);
    expect(browserPoolStatus().prepared).toBe(BROWSER_CONCURRENCY);
    expect(browserPoolStatus().contexts).toBe(BROWSER_CONCURRENCY);
  });

  it('shutdown closes the prepared contexts with the browser and removes its profile', {
    timeout: 180_000,
  }, async () => {
    await warmPdfPages();
    const { profile } = browserPoolStatus();
    expect(processesOf(profile!).length).toBeGreaterThan(0);
    await closeBrowserPool();
    await settled(() => processesOf(profile!).length === 0);
    expect(processesOf(profile!)).toEqual([]);
    expect(existsSync(profile!)).toBe(false);
    expect(browserPoolStatus()).toMatchObject({ running: false, contexts: 0, prepared: 0 });
  });
});

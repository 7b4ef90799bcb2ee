import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { expect } from 'vitest';
import { runConversion } from '../../src/run/runner.js';

const CHROMIUM = process.env.FILECONV_CHROMIUM ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, `${name}.png`);
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 740 };

/**
 * Opens the page in a fresh context and waits for its catalog; `finish` closes it and fails the
 * test on any script error the page threw meanwhile.
 */
export function pageHarness(browser: () => Browser, baseUrl: () => string) {
  const pageErrors = new WeakMap<Page, string[]>();
  return {
    async open(
      viewport = DESKTOP,
      colorScheme: 'light' | 'dark' = 'light',
      url = baseUrl(),
      beforeLoad?: (page: Page) => void,
    ): Promise<Page> {
      const context = await browser().newContext({ viewport, colorScheme, acceptDownloads: true });
      const page = await context.newPage();
      beforeLoad?.(page);
      const errors: string[] = [];
      pageErrors.set(page, errors);
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(url);
      await page.waitForSelector('body[data-ready]', { timeout: 90_000 });
      // 'error' means the catalog could not be loaded; the target panel says why.
      const reason = (await page.textContent('#target-panel')) ?? '';
      expect(await page.getAttribute('body', 'data-ready'), reason).toBe('true');
      return page;
    },
    async finish(page: Page): Promise<void> {
      await page.context().close();
      expect(pageErrors.get(page)).toEqual([]);
    },
  };
}

/** A scan without a text layer: "INVOICE 42" drawn into a picture, put on a PDF page. */
export async function scanPdf(dir: string): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="300">
    <rect width="100%" height="100%" fill="white"/>
    <text x="60" y="190" font-family="DejaVu Sans" font-size="110" fill="black">INVOICE 42</text></svg>`;
  const png = join(dir, 'scan.png');
  await sharp(Buffer.from(svg)).png().toFile(png);
  const { files } = await runConversion({ input: png, from: 'png', to: 'pdf', outDir: dir });
  return files[0]!.path;
}

/**
 * What a result link downloads, fetched as a script would. Playwright's request context reuses a
 * kept-alive socket without heeding the server's `Keep-Alive: timeout=`, so on a loaded machine it
 * can send on a socket the server is just closing and read ECONNRESET; undici's fetch (Node's)
 * retires the socket before the server's timeout.
 */
export async function downloadHref(href: string): Promise<{ status: number; body: Buffer }> {
  const response = await fetch(href);
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

import { readFile, writeFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { BrowserContext, Page, Route } from 'playwright-core';
import sharp from 'sharp';
import { decodeSource } from '../../src/detect/text/encoding.js';
import type { StepContext } from '../../src/engine/contract.js';
import { type ConversionOptions, optionsFor } from '../../src/engine/options.js';
import { FileconvError } from '../../src/errors/index.js';
import { engineOutputLimit } from '../../src/run/sandbox.js';
import { BROWSER_OPTIONS, type BrowserOptions } from './options.js';
import { withBrowserContext } from './pool.js';
import { pdfOptions } from './print.js';
import type { Site } from './site.js';

/**
 * The origin pages are served from. Nothing resolves it: every request the page makes goes
 * through the context's request interception, which answers this origin from the site folder and
 * refuses everything else.
 */
export const PAGE_ORIGIN = 'https://document.invalid';

export type RenderTarget = 'pdf' | 'png' | 'jpg' | 'webp';

/** Full-page images stop at this height in device pixels (WebP's limit is 16383). */
export const MAX_IMAGE_HEIGHT = 16_000;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xhtml': 'application/xhtml+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.txt': 'text/plain; charset=utf-8',
};

// Pages may not print, open windows or ask questions: each would stall or loop a headless browser.
const QUIET_PAGE = `(() => {
  const noop = () => undefined;
  for (const name of ['print', 'alert']) Object.defineProperty(window, name, { value: noop });
  Object.defineProperty(window, 'open', { value: () => null });
  Object.defineProperty(window, 'confirm', { value: () => false });
  Object.defineProperty(window, 'prompt', { value: () => null });
})();`;

/** Answers a request from the site folder, or refuses it; returns whether it was refused. */
async function answer(route: Route, site: Site): Promise<boolean> {
  const url = new URL(route.request().url());
  if (url.origin !== PAGE_ORIGIN) {
    await route.abort('blockedbyclient');
    return true;
  }
  const root = resolve(site.root);
  const file = resolve(root, decodeURIComponent(url.pathname).replace(/^\/+/, ''));
  const body = file.startsWith(root + sep) ? await readFile(file).catch(() => undefined) : undefined;
  if (!body) {
    await route.fulfill({ status: 404, body: '' });
    return false;
  }
  const ext = extname(file).toLowerCase();
  const contentType = CONTENT_TYPES[ext] ?? 'application/octet-stream';
  // Pages are served as UTF-8, and a header's charset overrules the page's own declaration: a
  // page in another encoding (a windows-1252 page saying so in its meta) is decoded first, by the
  // same rule as every text input.
  const page = ext === '.html' || ext === '.htm' ? Buffer.from(decodeSource(body, 'html').text) : body;
  await route.fulfill({ status: 200, body: page, contentType });
  return false;
}

/** A context's confinement: the site it may read (given when a conversion takes the context). */
interface Confinement {
  site?: Site;
  refused: number;
}

/**
 * Confines a context to one site: request interception on every request and websocket. Set up
 * before the context has a site (contexts are opened ahead), so until one is given every request
 * is refused.
 */
async function confine(context: BrowserContext): Promise<Confinement> {
  const confinement: Confinement = { refused: 0 };
  await context.route('**/*', async (route) => {
    const site = confinement.site;
    // A request that cannot be answered (a malformed path) is refused, never left hanging.
    const refuse = () =>
      route.abort().then(
        () => true,
        () => true,
      );
    const refused = site ? await answer(route, site).catch(refuse) : await refuse();
    if (refused) confinement.refused++;
  });
  await context.routeWebSocket(/.*/, (ws) => {
    confinement.refused++;
    void ws.close({ code: 1008, reason: 'offline' });
  });
  await context.addInitScript(QUIET_PAGE);
  return confinement;
}

/** Writes a result the browser handed back, if it is within the engine output cap. */
async function writeResult(output: string, bytes: Buffer): Promise<void> {
  const cap = engineOutputLimit();
  if (cap !== null && bytes.length > cap) throw new FileconvError('OUTPUT_TOO_LARGE');
  await writeFile(output, bytes);
}

async function screenshot(page: Page, to: RenderTarget, output: string, options: BrowserOptions) {
  const scale = options.device_scale_factor ?? 1;
  // Measured through DevTools, which answers with the page's own scripts off.
  const height = await page.evaluate(() =>
    Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
  );
  const width = page.viewportSize()?.width ?? 1280;
  const tooTall = height * scale > MAX_IMAGE_HEIGHT;
  const png = await page.screenshot({
    type: 'png',
    fullPage: !tooTall,
    clip: tooTall ? { x: 0, y: 0, width, height: Math.floor(MAX_IMAGE_HEIGHT / scale) } : undefined,
    animations: 'disabled',
  });
  if (to === 'png') return writeResult(output, png);
  const image = sharp(png);
  const quality = options.quality ?? 85;
  await writeResult(
    output,
    await (to === 'jpg' ? image.jpeg({ quality, mozjpeg: true }) : image.webp({ quality })).toBuffer(),
  );
}

function crashed(): FileconvError {
  return new FileconvError(
    'CONVERT_FAILED',
    "The page crashed the browser's renderer (it used too much memory, or a script broke it).",
  );
}

/**
 * Draws the site's page as Chromium does and writes it to `output`: printed to PDF, or a
 * full-page screenshot. The page's own scripts run only with the `javascript` option.
 */
export async function renderSite(
  site: Site,
  to: RenderTarget,
  output: string,
  conversionOptions: ConversionOptions,
  ctx: StepContext,
): Promise<void> {
  const options = optionsFor(BROWSER_OPTIONS, conversionOptions);
  const image = to !== 'pdf';
  await withBrowserContext({
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    log: ctx.log,
    context: {
      javaScriptEnabled: options.javascript ?? false,
      acceptDownloads: false,
      serviceWorkers: 'block',
      viewport: { width: options.viewport_width ?? 1280, height: 800 },
      deviceScaleFactor: image ? (options.device_scale_factor ?? 1) : 1,
    },
    prepare: confine,
    async run(page, confinement, deadline) {
      confinement.site = site;
      let pageCrashed = false;
      page.on('crash', () => {
        pageCrashed = true;
      });
      const left = () => Math.max(1, deadline - Date.now());
      try {
        await page.emulateMedia({ media: options.media ?? (image ? 'screen' : 'print') });
        await page.goto(`${PAGE_ORIGIN}/${site.entry}`, { waitUntil: 'load', timeout: left() });
        if (options.wait_for)
          await page.waitForSelector(options.wait_for, { state: 'attached', timeout: left() });
        if (options.wait_ms) await page.waitForTimeout(Math.min(options.wait_ms, left()));
        ctx.progress(0.6);
        if (image) await screenshot(page, to, output, options);
        else await writeResult(output, await page.pdf(pdfOptions(options)));
      } catch (e) {
        if (pageCrashed) throw crashed();
        if (options.wait_for && /waitForSelector/.test((e as Error).message)) {
          throw new FileconvError('CONVERT_FAILED', `The page never showed ${options.wait_for}.`, {
            cause: e,
          });
        }
        throw e;
      } finally {
        const { refused } = confinement;
        if (refused > 0) ctx.log(`refused ${refused} request(s) outside the page's own files`);
      }
    },
  });
}

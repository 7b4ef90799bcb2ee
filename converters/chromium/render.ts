import { readFile, writeFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { BrowserContext, BrowserContextOptions, Page, Route } from 'playwright-core';
import sharp from 'sharp';
import { decodeSource } from '../../src/detect/text/encoding.js';
import type { StepContext } from '../../src/engine/contract.js';
import { type ConversionOptions, optionsFor } from '../../src/engine/options.js';
import { FileconvError } from '../../src/errors/index.js';
import { engineOutputLimit } from '../../src/run/sandbox.js';
import { BROWSER_OPTIONS, type BrowserOptions } from './options.js';
import { type Recipe, warmBrowser, withBrowserContext } from './pool.js';
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

/** Where a site's page is, when it is at the top of the site (a single HTML file always is). */
const TOP_ENTRY = 'index.html';

/**
 * The page a prepared context loads before its conversion: the origin's renderer process is then
 * running (a first navigation to a new site starts one) and has laid out and printed text in the
 * default faces, so the conversion's own load and print start warm. It is served by the
 * interception below, only until the context has its site, at the address the document will have,
 * holds no script and keeps nothing the document could read.
 */
const WARM_URL = `${PAGE_ORIGIN}/${TOP_ENTRY}`;
const WARM_PAGE =
  '<!DOCTYPE html><html><head><meta charset="utf-8"><title>-</title></head><body>' +
  '<p style="font-family:sans-serif">Aa</p><p style="font-family:serif"><b>Aa</b> <i>Aa</i></p>' +
  '<pre>Aa</pre><table><tr><td>1</td></tr></table></body></html>';

/** A context's confinement: the site it may read (given when a conversion takes the context). */
interface Confinement {
  site?: Site;
  refused: number;
}

/** Until the context has its site it may load only the warm-up page. */
async function answerBeforeSite(route: Route): Promise<boolean> {
  if (route.request().url() !== WARM_URL) {
    await route.abort('blockedbyclient');
    return true;
  }
  await route.fulfill({ status: 200, body: WARM_PAGE, contentType: 'text/html; charset=utf-8' });
  return false;
}

/**
 * Confines a context to one site: request interception on every request and websocket. Set up
 * before the context has a site (contexts are prepared ahead), so until one is given every request
 * but the warm-up page's is refused.
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
    const refused = await (site ? answer(route, site) : answerBeforeSite(route)).catch(refuse);
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

/** How long preparing a context's page may take (it loads nothing but the warm-up page). */
const PREPARE_MS = 15_000;

/**
 * The context a conversion with these options gets, prepared before its request arrives: the
 * context options, request interception and quiet-page script, the media, and the warm-up page
 * loaded (and, for PDF, printed once, which loads the print path and its fonts in the renderer).
 */
function recipeFor(options: BrowserOptions, image: boolean): Recipe<Confinement> {
  const media = options.media ?? (image ? 'screen' : 'print');
  const context: BrowserContextOptions = {
    javaScriptEnabled: options.javascript ?? false,
    acceptDownloads: false,
    serviceWorkers: 'block',
    viewport: { width: options.viewport_width ?? 1280, height: 800 },
    deviceScaleFactor: image ? (options.device_scale_factor ?? 1) : 1,
  };
  return {
    context,
    variant: { media, image },
    async prepare(ctx, page) {
      const confinement = await confine(ctx);
      await page.emulateMedia({ media });
      await page.goto(WARM_URL, { waitUntil: 'load', timeout: PREPARE_MS });
      if (!image) await page.pdf({ format: 'A4', printBackground: true });
      return confinement;
    },
  };
}

/**
 * Starts the browser with contexts ready for HTML to PDF with default options (the most asked),
 * and waits until they are: benchmarks and a server that wants its first request warm.
 */
export async function warmPdfPages(): Promise<void> {
  await warmBrowser(recipeFor(optionsFor(BROWSER_OPTIONS, {}), false));
}

/**
 * Loads the site's page. A page at the top of its site with scripts off is written into the
 * prepared page's document, which already has the page's address: no navigation, so no new
 * document, renderer frame or print set-up, and the interception still answers every subresource.
 * The text is decoded as the interception serves it (by its byte order mark, its own declared
 * charset or a guess, as `decodeSource` reads every HTML source). With scripts on the page is navigated to, so scripts see a load as a browser makes it.
 */
async function load(page: Page, site: Site, options: BrowserOptions, timeout: number): Promise<void> {
  if (options.javascript || site.entry !== TOP_ENTRY) {
    await page.goto(`${PAGE_ORIGIN}/${site.entry}`, { waitUntil: 'load', timeout });
    return;
  }
  const bytes = await readFile(join(site.root, site.entry));
  await page.setContent(decodeSource(bytes, 'html').text, { waitUntil: 'load', timeout });
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
    ...recipeFor(options, image),
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    log: ctx.log,
    async run(page, confinement, deadline) {
      confinement.site = site;
      let pageCrashed = false;
      page.on('crash', () => {
        pageCrashed = true;
      });
      const left = () => Math.max(1, deadline - Date.now());
      try {
        await load(page, site, options, left());
        if (options.wait_for)
          await page.waitForSelector(options.wait_for, { state: 'attached', timeout: left() });
        if (options.wait_ms) await page.waitForTimeout(Math.min(options.wait_ms, left()));
        ctx.progress(0.6);
        if (image) await screenshot(page, to, output, options);
        else
          await writeResult(
            output,
            await page.pdf({ ...pdfOptions(options), tagged: site.tagged !== false }),
          );
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

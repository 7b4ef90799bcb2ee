import { join } from 'node:path';
import { defineConverter, edgesBetween } from '../src/engine/contract.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { probeBinary } from '../src/run/process.js';
import { CHROMIUM_NAMES } from './chromium/launch.js';
import { BROWSER_OPTIONS, browserOptionNames } from './chromium/options.js';
import { BROWSER_CONCURRENCY, browserPoolStatus, closeBrowserPool, warmBrowser } from './chromium/pool.js';
import { type RenderTarget, renderSite, warmPdfPages } from './chromium/render.js';
import { singlePageSite, zippedSite } from './chromium/site.js';

const TARGETS: RenderTarget[] = ['pdf', 'png', 'jpg', 'webp'];

// Cheaper than LibreOffice (20) for HTML, so the browser draws web pages and LibreOffice is the
// fallback; images are screenshots, so lossy.
const EDGES = edgesBetween(['html', 'htmlzip'] as FormatId[], TARGETS, (_from, to) => ({
  family: 'document',
  lossy: to !== 'pdf',
  cost: 10,
  options: browserOptionNames(to),
}));

export default defineConverter({
  name: 'chromium',
  description:
    'headless Chromium: web pages (HTML, or a ZIP of index.html and its assets) to PDF and full-page images, offline',
  packages: ['chromium', 'fonts-dejavu-core'],
  edges: EDGES,
  options: BROWSER_OPTIONS,
  concurrency: BROWSER_CONCURRENCY,
  timeoutMs: 60_000,
  probe: () => probeBinary(CHROMIUM_NAMES, ['--version'], /(?:Chromium|Chrome) (\d[\d.]*)/),
  async diagnose() {
    const status = await warmBrowser();
    const lines = [`warm browser ${status.mode}, replaced after ${status.maxConversions} conversions`];
    if (status.sandboxError) lines.push(`Chromium's sandbox could not start here: ${status.sandboxError}`);
    return lines;
  },
  warm: warmPdfPages,
  close: closeBrowserPool,
  async run({ edge, input, outDir, options }, ctx) {
    const site =
      edge.from === 'htmlzip'
        ? await zippedSite(input, ctx.workDir)
        : await singlePageSite(input, ctx.workDir);
    ctx.progress(0.1);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    await renderSite(site, edge.to as RenderTarget, output, options, ctx);
    const status = browserPoolStatus();
    if (status.conversions === 1) ctx.log(`browser runs ${status.mode}`);
    ctx.progress(1);
    return { files: [output] };
  },
});

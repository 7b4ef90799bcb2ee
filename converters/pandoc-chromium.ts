import { join } from 'node:path';
import { defineConverter, edgesBetween } from '../src/engine/contract.js';
import { bool, defineOption } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { findBinary, probeBinary } from '../src/run/process.js';
import { CHROMIUM_NAMES } from './chromium/launch.js';
import { BOOK_FORMATS, MARKUP_FORMATS, markupSite, NOTEBOOK_FORMATS } from './chromium/markup.js';
import { PAGE_OPTIONS, PRINT_OPTIONS } from './chromium/options.js';
import { closeBrowserPool } from './chromium/pool.js';
import { renderSite } from './chromium/render.js';
import { CODE_FORMATS } from './code/highlight.js';

// Cheaper than pandoc to HTML then Chromium (5 + 10) and than LibreOffice (20): text documents
// print through HTML with the print stylesheet in one step.
const TEXT_MARGIN = '20mm';

const OPTIONS = {
  ...PAGE_OPTIONS,
  ...PRINT_OPTIONS,
  break_before_h1: defineOption(
    bool(),
    'start every top-level heading on a new page (Markdown and text to PDF)',
  ),
};

const EDGES = [
  ...edgesBetween([...MARKUP_FORMATS, 'txt', ...CODE_FORMATS], ['pdf'], {
    family: 'text',
    lossy: false,
    cost: 12,
  }),
  // A book printed as a document: lossy (its page layout and fonts are the print stylesheet's).
  // Before calibre (14), whose MathJax sometimes misses its deadline on a loaded machine and leaves
  // an equation out; calibre stays the fallback for books pandoc's reader cannot open.
  ...edgesBetween(BOOK_FORMATS, ['pdf'], {
    family: 'ebook',
    lossy: true,
    cost: 12,
  }),
  // A notebook's cells and their outputs (text and pictures), as pandoc reads them to HTML.
  ...edgesBetween(NOTEBOOK_FORMATS, ['pdf'], {
    family: 'document',
    lossy: false,
    cost: 12,
  }),
];

export default defineConverter({
  name: 'pandoc-chromium',
  description:
    "Markdown, reStructuredText, Org, MediaWiki, Textile, man pages, DocBook, plain text, source code (highlighted, with line numbers), Jupyter notebooks and EPUB books to PDF: pandoc to HTML with a print stylesheet (math as MathML, a book's pictures inside the page), printed by headless Chromium",
  packages: ['pandoc', 'chromium', 'fonts-dejavu-core'],
  edges: EDGES,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 60_000,
  async probe() {
    const browser = await probeBinary(CHROMIUM_NAMES, ['--version'], /(?:Chromium|Chrome) (\d[\d.]*)/);
    if (!browser.ok) return browser;
    if (!findBinary(['pandoc'])) return { ok: false, detail: 'pandoc not found on PATH' };
    return browser;
  },
  // The same warm browser as the chromium engine.
  close: closeBrowserPool,
  async run({ edge, input, outDir, options }, ctx) {
    const own = optionsFor(OPTIONS, options);
    const site = await markupSite(input, edge.from, own, ctx);
    ctx.progress(0.2);
    const output = join(outDir, 'output.pdf');
    // Text pages read better with a book-like margin than a web page's printer default.
    await renderSite(site, 'pdf', output, { ...options, margin: own.margin ?? TEXT_MARGIN }, ctx);
    ctx.progress(1);
    return { files: [output] };
  },
});

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSource, encodingNote } from '../../src/detect/text/encoding.js';
import type { StepContext } from '../../src/engine/contract.js';
import { FileconvError } from '../../src/errors/index.js';
import type { FormatId } from '../../src/formats/index.js';
import { EngineProcessError, findBinary, runProcess } from '../../src/run/process.js';
import { PICTURES_INSIDE, pandocReader } from '../_pandoc-readers.js';
import {
  CODE_LANGUAGES,
  codeAsMarkdown,
  codeTitle,
  sourceText,
  tooDenseToHighlight,
} from '../code/highlight.js';
import { CODE_RUN_STYLESHEET, LONGEST_TAGGED_LISTING, printableCodeBlocks } from './code-blocks.js';
import { type Site, singlePageSite } from './site.js';

/** Text formats pandoc reads, printed through HTML (their readers in converters/_pandoc-readers.ts). */
export const MARKUP_FORMATS: FormatId[] = ['md', 'rst', 'org', 'mediawiki', 'textile', 'roff', 'docbook'];

/** Books printed through HTML the same way: pandoc reads the EPUB, pictures and MathML included. */
export const BOOK_FORMATS: FormatId[] = ['epub'];

/** Notebooks print as books do: their cells' outputs (plots) are pictures inside the file. */
export const NOTEBOOK_FORMATS: FormatId[] = ['ipynb'];

/**
 * The default look of text printed through HTML: a readable serif body, sans-serif headings,
 * code on a tinted block that wraps instead of running off the page, ruled tables across the
 * width, images no wider than the text.
 */
export const PRINT_STYLESHEET = `
html { font-size: 11pt; line-height: 1.5; color: #1a1a1a; background: #fff; }
body { margin: 0; max-width: none; padding: 0; font-family: 'DejaVu Serif', Georgia, serif;
  hyphens: auto; overflow-wrap: break-word; }
h1, h2, h3, h4, h5, h6 { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; line-height: 1.25;
  margin: 1.4em 0 0.5em; break-after: avoid; }
h1 { font-size: 1.9em; } h2 { font-size: 1.5em; } h3 { font-size: 1.2em; }
p, ul, ol, dl, blockquote, table, pre { margin: 0 0 0.9em; }
a { color: #1d4ed8; text-decoration: none; }
code, pre, kbd { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 0.88em; }
code { background: #f3f4f6; padding: 0.1em 0.3em; border-radius: 3px; }
pre { background: #f3f4f6; padding: 0.8em 1em; border-radius: 4px; white-space: pre-wrap;
  break-inside: avoid; }
pre code { background: none; padding: 0; }
pre.plain { background: none; padding: 0; font-size: 10pt; }
div.sourceCode, pre.sourceCode { break-inside: auto; }
blockquote { border-left: 4px solid #d1d5db; padding-left: 1em; color: #4b5563; }
table { border-collapse: collapse; width: 100%; break-inside: auto; }
th, td { border: 1px solid #d1d5db; padding: 0.35em 0.6em; text-align: left; vertical-align: top; }
thead th { background: #f3f4f6; }
tr { break-inside: avoid; }
img, svg { max-width: 100%; height: auto; }
hr { border: none; border-top: 1px solid #d1d5db; }
header#title-block-header { margin-bottom: 2em; }
`;

const H1_PAGE_BREAKS =
  'h1 { break-before: page; } body > h1:first-of-type, header + h1 { break-before: auto; }';

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** Plain text as one preformatted block that keeps its lines and wraps long ones. */
function plainTextPage(text: string): string {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Document</title><link rel="stylesheet" href="style.css"></head>\n<body><pre class="plain">${escapeHtml(text)}</pre></body></html>\n`;
}

/**
 * Turns a text document or a book into a standalone HTML page beside the print stylesheet: pandoc
 * (in its sandbox, so the document can read no file or URL) for Markdown, reST, Org, source code
 * (highlighted) and EPUB; plain text as is. Math becomes MathML, which Chromium draws. A book's
 * pictures exist only inside its container, so they are carried in the page as data URLs
 * (`--self-contained`, which cannot also read the stylesheet from the sandbox: the page links it
 * afterwards).
 */
export async function markupSite(
  input: string,
  from: FormatId,
  options: { break_before_h1?: boolean },
  ctx: StepContext,
): Promise<Site> {
  const page = join(ctx.workDir, 'page.html');
  // A book's or a notebook's pictures are inside the file: the page carries them.
  const book = PICTURES_INSIDE.has(from);
  // Source code is printed as one highlighted block: a Markdown document holding it as a fence.
  // Minified code (lines of thousands of characters) is printed as plain text, which wraps fast.
  let code = CODE_LANGUAGES[from] !== undefined;
  let tagged = true;
  if (code) {
    const text = await sourceText(input, from);
    if (tooDenseToHighlight(text)) {
      ctx.log(
        'printed without highlighting: the source has lines of thousands of characters (minified code)',
      );
      code = false;
    } else if (lineCount(text) > LONGEST_TAGGED_LISTING) {
      ctx.log(`printed without a structure tree: a listing of over ${LONGEST_TAGGED_LISTING} lines`);
      tagged = false;
    }
  }
  // Plain text has no reader: it is printed as it is.
  const reader = code ? 'markdown' : pandocReader(from);
  let source = input;
  if (code) source = await codeAsMarkdown(input, from, ctx.workDir);
  else if (!book) {
    // pandoc reads UTF-8 only, and the page is written as UTF-8: other encodings are decoded here.
    const found = decodeSource(await readFile(input), from);
    const { text, encoding } = found;
    if (encoding !== 'UTF-8') ctx.log(encodingNote(found));
    if (!reader) await writeFile(page, plainTextPage(text));
    else if (encoding !== 'UTF-8') {
      source = join(ctx.workDir, `source.utf8.${from}`);
      await writeFile(source, text);
    }
  }
  if (reader) {
    const pandoc = findBinary(['pandoc']);
    if (!pandoc) throw new FileconvError('CONVERT_FAILED', 'pandoc is not installed.');
    const args = ['--sandbox', '-f', reader, '-t', 'html5', '-s', '--mathml'];
    args.push(...(book ? ['--self-contained'] : ['--css', 'style.css']));
    args.push('--metadata', `pagetitle=${code ? codeTitle(from) : 'Document'}`, '-o', page, '--', source);
    try {
      await runProcess(pandoc, args, ctx);
    } catch (e) {
      if (e instanceof EngineProcessError)
        throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
      throw e;
    }
    const written = await readFile(page, 'utf8');
    let html = printableCodeBlocks(written);
    if (book) html = html.replace(/<\/head>/i, '<link rel="stylesheet" href="style.css">\n</head>');
    if (html !== written) await writeFile(page, html);
  }
  const site = { ...(await singlePageSite(page, ctx.workDir)), tagged };
  const css = PRINT_STYLESHEET + CODE_RUN_STYLESHEET + (options.break_before_h1 ? H1_PAGE_BREAKS : '');
  await writeFile(join(site.root, 'style.css'), css);
  return site;
}

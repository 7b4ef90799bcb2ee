import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSource, encodingNote } from '../src/detect/text/encoding.js';
import { type ConversionEdge, defineConverter, edgesBetween } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { PICTURES_INSIDE, pandocReader } from './_pandoc-readers.js';
import { isPasswordProtected } from './office/encryption.js';
import { odtWithoutSections } from './office/odt-sections.js';
import { forWriter } from './office/pandoc-odt.js';
import { withTextContainersInBody } from './office/text-containers.js';

/** The formats this converter reads (pandoc's reader of each in converters/_pandoc-readers.ts). */
const SOURCES: FormatId[] = [
  'md',
  'html',
  'docx',
  'odt',
  'epub',
  'rst',
  'tex',
  'mediawiki',
  'textile',
  'roff',
  'docbook',
  'ipynb',
];

/*
 * Writers run with --sandbox, which keeps readers and writers from touching any file or URL the
 * document names. Debian's pandoc 2.x is built without embedded data files, and in the sandbox the
 * docx and epub writers then cannot reach their own templates (they fail with "Could not find data
 * file"), so those two are left to LibreOffice and calibre. odt works when handed its reference
 * document explicitly.
 */
const WRITERS: Partial<Record<FormatId, { writer: string; standalone: boolean }>> = {
  // Divs and spans carry layout from HTML or PDF sources that Markdown readers would show as noise.
  md: { writer: 'markdown-raw_html-native_divs-native_spans-fenced_divs-bracketed_spans', standalone: false },
  html: { writer: 'html', standalone: true },
  odt: { writer: 'odt', standalone: false },
  rst: { writer: 'rst', standalone: false },
  tex: { writer: 'latex', standalone: true },
  txt: { writer: 'plain', standalone: false },
  rtf: { writer: 'rtf', standalone: true },
};

const FAMILY: Partial<Record<FormatId, ConversionEdge['family']>> = {
  md: 'text',
  rst: 'text',
  tex: 'text',
  mediawiki: 'text',
  textile: 'text',
  roff: 'text',
  html: 'document',
  docx: 'document',
  odt: 'document',
  docbook: 'document',
  ipynb: 'document',
  epub: 'ebook',
};

/*
 * Lossy rule: pandoc goes through its own document tree. Markdown, reStructuredText and the other
 * markup languages it reads (MediaWiki, Textile, man pages, DocBook, and notebooks, whose outputs
 * are carried as pictures and text) map onto that tree whole, so from them to any structured
 * target nothing is lost (a wiki's templates are expanded by its server, not written in the page).
 * Everything else is lossy: docx/odt/html/epub carry styling the tree has no room for, LaTeX
 * carries macros pandoc only partly understands, and plain text drops all markup.
 */
const WHOLE_TREE: ReadonlySet<FormatId> = new Set([
  'md',
  'rst',
  'mediawiki',
  'textile',
  'roff',
  'docbook',
  'ipynb',
]);
const isLossy = (from: FormatId, to: FormatId) => to === 'txt' || !WHOLE_TREE.has(from);

const EDGES = edgesBetween(SOURCES, Object.keys(WRITERS) as FormatId[], (from, to) => ({
  family: FAMILY[from] ?? 'text',
  lossy: isLossy(from, to),
  cost: 5,
}));

/** Failures that mean pandoc could not read the input at all. */
const UNREADABLE =
  /couldn't unpack|could not unzip|couldn't extract|did not find end of central directory|Error at .*line \d+|Cannot decode byte|Invalid UTF-8|Invalid XML/i;

const CONTAINERS = new Set<FormatId>(['docx', 'odt', 'epub']);
/**
 * Targets with no place for a page's furniture or a floating box: a document's text boxes, shapes,
 * headers, footers and comments become paragraphs of their body (office/text-containers.ts).
 */
const FLOWING: ReadonlySet<FormatId> = new Set(['txt', 'html', 'md', 'rst', 'tex']);

/**
 * pandoc reads text as UTF-8 only: a UTF-16 or Latin-1 source is handed over re-encoded, from a
 * copy in the step's scratch folder.
 */
async function utf8Source(input: string, format: FormatId, workDir: string, log: (m: string) => void) {
  const bytes = await readFile(input);
  const found = decodeSource(bytes, format);
  const { text, encoding } = found;
  if (encoding === 'UTF-8') return input;
  log(encodingNote(found));
  const copy = join(workDir, `source.utf8.${extensionOf(format)}`);
  await writeFile(copy, text);
  return copy;
}

export default defineConverter({
  name: 'pandoc',
  description:
    'pandoc (sandboxed): markup and document formats through one document tree. Text in another encoding is re-encoded to UTF-8 first: by its byte order mark, else as UTF-8 when it is valid UTF-8, else by its declaration (meta charset, XML prolog), else by an encoding detector (Big5, GB18030, Shift_JIS, EUC-KR, windows and ISO-8859 code pages, KOI8-R); a guess without confidence is read as windows-1252 and said so in the timeline. A DOCX or ODT to text, HTML, Markdown, reST or LaTeX is handed over with its text boxes, shapes and comments as paragraphs after the paragraph they are anchored in, and its headers and footers (each distinct one once) at the start and the end, since pandoc reads only the body and the notes.',
  packages: ['pandoc'],
  edges: EDGES,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(['pandoc'], ['--version'], /pandoc (\d[\d.]*)/),
  async run({ edge, input, outDir }, ctx) {
    const pandoc = findBinary(['pandoc']);
    if (!pandoc) throw new FileconvError('CONVERT_FAILED', 'pandoc is not installed.');
    const reader = pandocReader(edge.from);
    const writer = WRITERS[edge.to];
    if (!reader || !writer)
      throw new FileconvError('CONVERT_FAILED', `pandoc cannot convert ${edge.from} to ${edge.to}.`);
    if (CONTAINERS.has(edge.from) && (await isPasswordProtected(input)))
      throw new FileconvError('ENCRYPTED_DOCUMENT');

    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    const args = ['--sandbox', '-f', reader, '-t', writer.writer, '-o', output];
    if (writer.standalone) args.push('-s');
    if (edge.to === 'html') {
      // Math as MathML, which browsers draw (the default leaves TeX source on the page), and the
      // container's pictures inside the page as data URLs: an EPUB's, DOCX's or ODT's media exist
      // only in pandoc's memory, so a page that links them shows broken images. The sandbox still
      // keeps the document from reading any file or URL: only the container's own media are embedded.
      args.push('--mathml');
      if (PICTURES_INSIDE.has(edge.from)) args.push('--self-contained');
    }
    if (edge.to === 'odt') {
      // Printing pandoc's own default file reads no user input, so it runs outside the sandbox.
      const reference = join(ctx.workDir, 'reference.odt');
      await runProcess(pandoc, ['-o', reference, '--print-default-data-file', 'reference.odt'], ctx);
      args.push('--reference-doc', reference);
    }
    let source =
      edge.from === 'odt'
        ? ((await odtWithoutSections(input, ctx.workDir)) ?? input)
        : CONTAINERS.has(edge.from)
          ? input
          : await utf8Source(input, edge.from, ctx.workDir, ctx.log);
    if ((edge.from === 'docx' || edge.from === 'odt') && FLOWING.has(edge.to)) {
      const lifted = await withTextContainersInBody(source, edge.from, ctx.workDir);
      if (lifted) {
        ctx.log(
          `${edge.from}: ${lifted.moved} text boxes, shapes, comments, headers or footers read as body paragraphs`,
        );
        source = lifted.file;
      }
    }
    args.push('--', source);
    ctx.progress(0.1);
    try {
      await runProcess(pandoc, args, ctx);
    } catch (e) {
      if (e instanceof EngineProcessError && (CONTAINERS.has(edge.from) || UNREADABLE.test(e.output))) {
        throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
      }
      throw e;
    }
    if (edge.to === 'odt') await forWriter(output);
    ctx.progress(1);
    return { files: [output] };
  },
});

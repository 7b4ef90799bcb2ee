import { copyFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSource, encodingNote } from '../src/detect/text/encoding.js';
import { type ConversionEdge, defineConverter, edgesBetween } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { isPasswordProtected } from './office/encryption.js';

const EBOOKS: FormatId[] = ['epub', 'mobi', 'azw3', 'fb2'];
/** Formats calibre reads into and writes from its ebook pipeline; only paired with an ebook here. */
const DOCUMENTS: FormatId[] = ['pdf', 'docx', 'txt'];

/*
 * Every calibre edge has family 'ebook' (the step is an ebook conversion whichever side the ebook
 * is on). All are lossy but epub <-> azw3: both are HTML/CSS books (KF8 is epub's Kindle form), so
 * content and styling survive; mobi (old Mobipocket) and fb2 flatten styling, and pdf/docx/txt
 * are re-flowed through calibre's HTML model.
 */
const isLossy = (from: FormatId, to: FormatId) =>
  !((from === 'epub' && to === 'azw3') || (from === 'azw3' && to === 'epub'));

/**
 * An ebook printed or laid out as a document goes through calibre before pandoc and Chromium in
 * two steps (5 + 10): calibre renders the book as a reader shows it, with its pictures and cover,
 * its own fonts, tables and links, and reads books pandoc's EPUB reader cannot (a package file
 * whose paths climb out of its folder, `../text/page.xhtml`). For EPUB to PDF the one-step
 * pandoc-chromium engine (12) comes first, since it draws MathML every time; calibre is its fallback.
 */
const EBOOK_AS_DOCUMENT_COST = 14;

const props = (from: FormatId, to: FormatId): Omit<ConversionEdge, 'from' | 'to'> => ({
  family: 'ebook',
  lossy: isLossy(from, to),
  cost: EBOOKS.includes(from) && (to === 'pdf' || to === 'docx') ? EBOOK_AS_DOCUMENT_COST : 25,
});

const EDGES: ConversionEdge[] = [
  ...edgesBetween(EBOOKS, EBOOKS, props),
  ...edgesBetween(DOCUMENTS, EBOOKS, props),
  ...edgesBetween(EBOOKS, DOCUMENTS, props),
];

/** Options per input format. Text is read as plain text: markdown would let it name local images. */
const INPUT_ARGS: Partial<Record<FormatId, string[]>> = {
  txt: ['--formatting-type', 'plain', '--input-encoding', 'utf-8'],
};

const DRM = /DRMError|Incorrect password/;
/** A traceback through an input plugin means calibre could not read the file. */
const INPUT_STAGE = /conversion\/plugins\/\w+_input\.py|ebooks\/mobi\/reader|utils\/localunzip\.py/;

function classify(e: unknown): unknown {
  if (!(e instanceof EngineProcessError)) return e;
  if (DRM.test(e.output)) return new FileconvError('ENCRYPTED_DOCUMENT', undefined, { cause: e });
  if (INPUT_STAGE.test(e.output) && !/_output\.py/.test(e.output)) {
    return new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
  }
  return e;
}

/** QtWebEngine (pdf output) runs headless; as root its Chromium refuses to start sandboxed. */
function qtEnv(): Record<string, string> {
  const env: Record<string, string> = { QT_QPA_PLATFORM: 'offscreen' };
  if (process.getuid?.() === 0) env.QTWEBENGINE_CHROMIUM_FLAGS = '--no-sandbox';
  return env;
}

export default defineConverter({
  name: 'calibre',
  description: 'calibre ebook-convert: epub, mobi, azw3, fb2, and ebooks from or to pdf, docx, txt',
  packages: ['calibre'],
  edges: EDGES,
  concurrency: 2,
  timeoutMs: 180_000,
  probe: () => probeBinary(['ebook-convert'], ['--version'], /calibre (\d[\d.]*)/),
  async run({ edge, input, outDir }, ctx) {
    const ebookConvert = findBinary(['ebook-convert']);
    if (!ebookConvert) throw new FileconvError('CONVERT_FAILED', 'calibre (ebook-convert) is not installed.');
    if (edge.from === 'docx' && (await isPasswordProtected(input)))
      throw new FileconvError('ENCRYPTED_DOCUMENT');
    // ebook-convert chooses its reader and writer by file extension.
    const named = join(ctx.workDir, `input.${extensionOf(edge.from)}`);
    if (edge.from === 'txt') {
      // Told UTF-8 (calibre's own guess reads Big5 or Shift_JIS as Latin-1): other encodings are decoded here.
      const found = decodeSource(await readFile(input), 'txt');
      const { text, encoding } = found;
      if (encoding !== 'UTF-8') ctx.log(encodingNote(found));
      await writeFile(named, text);
    } else await copyFile(input, named);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    ctx.progress(0.02);
    try {
      await runProcess(ebookConvert, [named, output, ...(INPUT_ARGS[edge.from] ?? [])], ctx, {
        env: qtEnv(),
        onLine: (line) => {
          const percent = /^(\d{1,3})% /.exec(line);
          if (percent) ctx.progress(Math.min(1, Number(percent[1]) / 100));
        },
      });
    } catch (e) {
      throw classify(e);
    }
    const written = await stat(output).catch(() => undefined);
    if (!written?.size) throw new FileconvError('CONVERT_FAILED', 'calibre wrote no output.');
    ctx.progress(1);
    return { files: [output] };
  },
});

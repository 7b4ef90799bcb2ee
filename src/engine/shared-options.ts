import { z } from 'zod';
import { readableEncoding } from '../formats/text.js';
import { bool, defineOption, int, like, OPERATION_ORDER, oneOf } from './option-kit.js';

/** Lossy presets of `compress`: pictures resampled to 300, 150 or 72 dpi, strongest last. */
export const LOSSY_COMPRESSION = ['printer', 'ebook', 'screen'] as const;

/**
 * Options that several converters honour, defined once so that every engine reads the same name
 * the same way (the registry refuses two different specs under one name). An option only one
 * converter honours is declared in that converter's file.
 */
export const quality = defineOption(int(1, 100), 'encoder quality 1-100');
export const width = defineOption(int(1, 16384), 'output width in px');
export const height = defineOption(int(1, 16384), 'output height in px');
export const fit = defineOption(
  oneOf(['cover', 'contain', 'fill', 'inside', 'outside', 'none']),
  'how a picture fills width x height, or a PDF page of a picture the paper: contain (whole), cover (filled, cut), fill (stretched), inside or outside (only shrunk or grown), none (its own size, centred)',
);
export const dpi = defineOption(int(36, 600), 'rasterising resolution');
export const pages = defineOption(like(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, '1-3,5'), 'page selection, 1-based');
export const lang = defineOption(
  like(/^[a-z]{2,3}([_+-][a-zA-Z0-9_]{2,8})*$/, 'eng'),
  'language (tesseract code for OCR, espeak voice for speech)',
  { order: OPERATION_ORDER.ocr },
);
export const compress = defineOption(
  oneOf(['lossless', ...LOSSY_COMPRESSION]),
  'make a file smaller, never larger: for a PDF lossless repacks it (qpdf), printer, ebook and screen resample its pictures to 300, 150 or 72 dpi (Ghostscript); photos and videos get the quality and size of the preset (docs/operations.md)',
  { order: OPERATION_ORDER.compress },
);
/** Whether options ask for a compression that resamples pictures (Ghostscript's, not qpdf's). */
export const wantsLossyCompression = (o: { compress?: unknown }) =>
  (LOSSY_COMPRESSION as readonly unknown[]).includes(o.compress);
/** A password as any option takes one: no NUL or line break (qpdf reads them a line each). */
export const PASSWORD = like(/^[^\0\r\n]{1,256}$/, 'correct horse');
export const password = defineOption(
  PASSWORD,
  'the password that opens a protected document (PDF, DOCX/XLSX/PPTX, DOC/XLS/PPT, ODF) for this conversion',
  { secret: true },
);
const CSS_LENGTH = String.raw`\d{1,4}(\.\d{1,3})?(mm|cm|in|px)`;
/** How pages are printed to PDF: the browser's and LibreOffice's PDF export read them alike. */
export const paper = defineOption(
  like(
    new RegExp(`^(A[3-5]|Letter|Legal|Tabloid|\\d{1,4}(\\.\\d{1,3})?x${CSS_LENGTH})$`, 'i'),
    'A4, Letter or 210x297mm',
  ),
  'paper size of a printed page: A3, A4, A5, Letter, Legal, Tabloid or WxH with a unit (210x297mm)',
);
export const landscape = defineOption(
  bool(),
  "true: print pages landscape (wider than tall); false: portrait (default: portrait for web pages, an office document's own)",
);
export const margin = defineOption(
  like(new RegExp(`^${CSS_LENGTH}( ${CSS_LENGTH}){0,3}$`), '10mm 15mm'),
  'page margins of a printed page, CSS order (top right bottom left)',
);
export const ocr = defineOption(bool(), 'true to read page text with OCR (PDF without a text layer)', {
  order: OPERATION_ORDER.ocr,
});
// Excel's own rule for sheet names: 1 to 31 characters, none of : \ / ? * [ ]
export const sheet = defineOption(
  like(/^[^\p{Cc}:\\/?*[\]]{1,31}$/u, '2'),
  'workbook sheet a table is taken from: its name, or its 1-based position (default: the first with data)',
);
/** Document information: the same text wherever a PDF is written (qpdf sets it, Ghostscript writes it with PDF/A). */
const infoText = () => like(/^[^\p{Cc}]{1,1000}$/u, 'Annual report');
const METADATA = { order: OPERATION_ORDER.metadata };
export const title = defineOption(infoText(), "the PDF's title (document information)", METADATA);
export const author = defineOption(infoText(), "the PDF's author (document information)", METADATA);
export const subject = defineOption(infoText(), "the PDF's subject (document information)", METADATA);
export const keywords = defineOption(
  infoText(),
  "the PDF's keywords, comma-separated (document information)",
  METADATA,
);
export const strip_metadata = defineOption(
  bool(),
  'remove metadata: the document information, XMP and earlier revisions of a PDF; EXIF, GPS and XMP of an image',
  METADATA,
);

/** Rewritten PDFs lose what runs when they are opened, unless this says to keep it (_pdf-active.ts). */
export const keepActiveContent = defineOption(
  bool(),
  'keep JavaScript, OpenAction, Launch and other actions that run by themselves in a rewritten PDF (default: dropped, and the timeline says what)',
  { everyStep: true },
);

/**
 * The encoding a text source is read in, over what detection found (docs/encodings.md). The
 * runner reads it at the door, before any engine, so no converter declares it.
 */
export const encoding = defineOption(
  z
    .string({ error: 'must be a string' })
    .max(40, { error: 'must be an encoding name' })
    .refine((name) => readableEncoding(name) !== undefined, {
      error:
        'must be an encoding name the decoder knows, such as windows-1251, koi8-r, shift_jis or utf-16le',
    })
    .meta({ examples: ['windows-1251'] }),
  'the encoding a text source is written in (windows-1251, koi8-r, shift_jis, utf-16le...), over the one detection finds',
);

/** Options the runner itself reads before the first step, for any text source: no engine sees them. */
export const DOOR_OPTIONS = { encoding } as const;

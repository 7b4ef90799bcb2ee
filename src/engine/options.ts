import { z } from 'zod';
import { FileconvError } from '../errors/index.js';
import type { ConversionFamily } from './contract.js';

/**
 * Options a conversion may take, validated once at the edge, then trusted by converters. Each is
 * a zod schema: the same schema checks `meta.options` and `-O key=value` and describes the option
 * in the OpenAPI document. Text values (from `-O`) are read as the number or boolean they spell.
 */
interface OptionSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  description: string;
  families: readonly ConversionFamily[];
}

function option<S extends z.ZodType>(
  schema: S,
  description: string,
  families: readonly ConversionFamily[],
): OptionSpec<S> {
  return { schema, description, families };
}

/** `-O dpi=300` arrives as text: numbers and booleans are read from it before checking. */
const numberFromText = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v);
const textFromNumber = (v: unknown) => (typeof v === 'number' ? String(v) : v);
const booleanFromText = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : v);

function numeric(kind: 'an integer' | 'a number', min: number, max: number) {
  const range = { error: `must be between ${min} and ${max}` };
  const base = z.number({ error: `must be ${kind}` });
  return z.preprocess(
    numberFromText,
    (kind === 'an integer' ? base.int({ error: 'must be an integer' }) : base)
      .min(min, range)
      .max(max, range),
  );
}
const int = (min: number, max: number) => numeric('an integer', min, max);
const num = (min: number, max: number) => numeric('a number', min, max);
const bool = () => z.preprocess(booleanFromText, z.boolean({ error: 'must be true or false' }));
function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(textFromNumber, z.enum(values, { error: `must be one of ${values.join(', ')}` }));
}
function like(pattern: RegExp, example: string) {
  return z.preprocess(
    textFromNumber,
    z
      .string({ error: 'must be a string' })
      .regex(pattern, { error: `must look like ${example}` })
      .meta({ examples: [example] }),
  );
}
const SAMPLE_RATES = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000] as const;

const MEDIA: ConversionFamily[] = ['audio', 'video'];
/** Options of pages drawn by a browser: HTML, and text formats printed through HTML. */
const WEB: ConversionFamily[] = ['document', 'text'];
const CSS_LENGTH = String.raw`\d{1,4}(\.\d{1,3})?(mm|cm|in|px)`;

/** An option of pages drawn by the browser. */
function web<S extends z.ZodType>(schema: S, description: string): OptionSpec<S> {
  return option(schema, description, WEB);
}

function pageTemplate(part: 'header' | 'footer') {
  return web(
    like(/^[^\0]{1,4000}$/, '<span class="pageNumber"></span>'),
    `HTML ${part} on every printed page (pageNumber, totalPages, title, date)`,
  );
}

export const OPTION_SPECS = {
  quality: option(int(1, 100), 'encoder quality 1-100', ['image', 'document']),
  width: option(int(1, 16384), 'output width in px', ['image', 'video']),
  height: option(int(1, 16384), 'output height in px', ['image', 'video']),
  fit: option(oneOf(['cover', 'contain', 'fill', 'inside', 'outside']), 'how width x height is filled', [
    'image',
  ]),
  dpi: option(int(36, 600), 'rasterising resolution', ['image', 'document', 'ocr']),
  pages: option(like(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, '1-3,5'), 'page selection, 1-based', [
    'document',
    'text',
    'ocr',
  ]),
  bitrate: option(int(8, 20000), 'bitrate in kbit/s', MEDIA),
  sample_rate: option(
    z.preprocess(
      numberFromText,
      z.union(
        SAMPLE_RATES.map((rate) => z.literal(rate)),
        { error: `must be one of ${SAMPLE_RATES.join(', ')}` },
      ),
    ),
    'audio sample rate in Hz',
    MEDIA,
  ),
  resolution: option(like(/^\d{2,5}x\d{2,5}$/, '1280x720'), 'video size WxH', ['video']),
  crf: option(int(0, 51), 'video constant rate factor', ['video']),
  start: option(num(0, 86400), 'start offset in seconds', MEDIA),
  duration: option(num(0.01, 86400), 'duration in seconds', MEDIA),
  lang: option(
    like(/^[a-z]{2,3}([_+-][a-zA-Z0-9_]{2,8})*$/, 'eng'),
    'language (tesseract code for ocr, espeak voice for voice)',
    ['ocr', 'voice'],
  ),
  voice: option(like(/^[a-z]{2,3}(-[a-z0-9]{2,8})*(\+[a-z0-9]{1,12})?$/, 'en-us'), 'espeak-ng voice', [
    'voice',
  ]),
  speed: option(int(80, 450), 'speech rate in words per minute', ['voice']),
  ocr: option(bool(), 'true to read page text with OCR (PDF without a text layer)', ['document', 'ocr']),
  // Excel's own rule for sheet names: 1 to 31 characters, none of : \ / ? * [ ]
  sheet: option(
    like(/^[^\p{Cc}:\\/?*[\]]{1,31}$/u, '2'),
    'workbook sheet a table is taken from: its name, or its 1-based position (default: the first with data)',
    ['spreadsheet'],
  ),
  paper: web(
    like(
      /^(A[3-5]|Letter|Legal|Tabloid|\d{1,4}(\.\d{1,3})?x\d{1,4}(\.\d{1,3})?(mm|cm|in|px))$/i,
      'A4, Letter or 210x297mm',
    ),
    'paper size of a printed web page',
  ),
  orientation: web(oneOf(['portrait', 'landscape']), 'page orientation of a printed web page'),
  margin: web(
    like(new RegExp(`^${CSS_LENGTH}( ${CSS_LENGTH}){0,3}$`), '10mm 15mm'),
    'page margins of a printed web page, CSS order',
  ),
  scale: web(num(0.1, 2), 'zoom of a printed web page'),
  print_background: web(bool(), 'print background colours and images (default true)'),
  prefer_css_page_size: web(bool(), "use the page's CSS @page size over paper"),
  media: web(
    oneOf(['print', 'screen']),
    'CSS media type of a web page (default print for PDF, screen for images)',
  ),
  header_template: pageTemplate('header'),
  footer_template: pageTemplate('footer'),
  javascript: web(bool(), "run the web page's scripts (default false)"),
  wait_for: web(like(/^[^\0]{1,200}$/, '#ready'), 'CSS selector to wait for before printing'),
  wait_ms: web(int(0, 10_000), 'delay before printing a web page, in ms'),
  viewport_width: web(int(200, 3840), 'layout width of a web page in CSS px'),
  device_scale_factor: web(num(1, 4), 'device pixels per CSS px of a web page image'),
  break_before_h1: option(bool(), 'start every top-level heading on a new page (Markdown and text to PDF)', [
    'text',
  ]),
  mode: option(
    oneOf(['layout', 'text']),
    'pdf to docx/odt/rtf: layout (pages, pictures, positions) or text (flowing paragraphs)',
    ['document'],
  ),
};

export type OptionName = keyof typeof OPTION_SPECS;

type OptionShape = { [K in OptionName]: z.ZodOptional<(typeof OPTION_SPECS)[K]['schema']> };

/**
 * Every option as one object schema (each optional, nothing else allowed): `meta.options` in the
 * OpenAPI document. Which of them a conversion takes depends on its families (`allowedOptions`).
 */
export const conversionOptionsSchema = z
  .strictObject(
    Object.fromEntries(
      Object.entries(OPTION_SPECS).map(([name, o]) => [
        name,
        o.schema.optional().meta({ description: `${o.description} (families: ${o.families.join(', ')})` }),
      ]),
    ) as OptionShape,
  )
  .meta({
    id: 'ConversionOptions',
    description:
      'Options of a conversion; each applies to the conversion families listed with it, others are refused (docs/conversions.md, "Options").',
  });

/** Validated options; converters read the ones that concern them. */
export type ConversionOptions = z.output<typeof conversionOptionsSchema>;

function invalid(message: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', message);
}

/** The option names a conversion whose steps have these families accepts. */
export function allowedOptions(families: Iterable<ConversionFamily>): Set<OptionName> {
  const fams = new Set(families);
  const names = new Set<OptionName>();
  for (const [name, o] of Object.entries(OPTION_SPECS) as [OptionName, OptionSpec][]) {
    if (o.families.some((f) => fams.has(f))) names.add(name);
  }
  return names;
}

/**
 * Validates raw options (from meta JSON or `-O key=value`) for a conversion whose steps have the
 * given families. Unknown or out-of-range options throw INVALID_REQUEST.
 */
export function validateOptions(raw: unknown, families: Iterable<ConversionFamily>): ConversionOptions {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('options must be an object');
  const allowed = allowedOptions(families);
  for (const name of Object.keys(raw)) {
    if (!Object.hasOwn(OPTION_SPECS, name)) throw invalid(`unknown option ${name}`);
    if (!allowed.has(name as OptionName)) throw invalid(`option ${name} does not apply to this conversion`);
  }
  const parsed = conversionOptionsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalid(`option ${String(issue.path[0])} ${issue.message}`);
}

/** Expands a `pages` selection to sorted 1-based page numbers, capped at `max`. */
export function expandPages(pages: string | undefined, pageCount: number): number[] {
  if (!pages) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const set = new Set<number>();
  for (const part of pages.split(',')) {
    const [a, b] = part.split('-').map(Number) as [number, number | undefined];
    for (let p = a; p <= (b ?? a) && p <= pageCount; p++) if (p >= 1) set.add(p);
  }
  return [...set].sort((x, y) => x - y);
}

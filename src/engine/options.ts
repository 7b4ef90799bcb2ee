import { FileconvError } from '../errors/index.js';
import type { ConversionFamily } from './contract.js';

/** Options a conversion may take, validated once at the edge, then trusted by converters. */
export interface ConversionOptions {
  /** Lossy encoder quality, 1 to 100. */
  quality?: number;
  /** Output width / height in pixels. */
  width?: number;
  height?: number;
  /** How to fit width x height: cover, contain, fill, inside, outside. */
  fit?: 'cover' | 'contain' | 'fill' | 'inside' | 'outside';
  /** Rasterisation resolution (pdf pages, svg, ocr input), 36 to 600. */
  dpi?: number;
  /** Page selection like `1-3,5` (1-based). */
  pages?: string;
  /** Audio/video bitrate in kbit/s. */
  bitrate?: number;
  /** Audio sample rate in Hz. */
  sample_rate?: number;
  /** Video size like `1280x720`. */
  resolution?: string;
  /** Video constant rate factor, 0 to 51. */
  crf?: number;
  /** Start offset and duration in seconds. */
  start?: number;
  duration?: number;
  /** OCR / voice language (tesseract code like `eng`, espeak voice like `en`). */
  lang?: string;
  /** Voice name for text to speech (espeak-ng voice, e.g. `en-us`). */
  voice?: string;
  /** Speech speed in words per minute, 80 to 450. */
  speed?: number;
  /** Read text from pages with OCR where an engine offers both (a PDF without a text layer). */
  ocr?: boolean;
  /** The workbook sheet a table comes from: its name, or its 1-based position. */
  sheet?: string;
  // Web pages (Chromium): see docs/conversions.md, "Web pages".
  /** Paper: A3, A4, A5, Letter, Legal, Tabloid, or WxH with a unit like `210x297mm`. */
  paper?: string;
  orientation?: 'portrait' | 'landscape';
  /** Page margins as CSS lengths: one for all sides, or top right bottom left like CSS. */
  margin?: string;
  /** Zoom of the printed page, 0.1 to 2. */
  scale?: number;
  /** Print background colours and images (default true). */
  print_background?: boolean;
  /** Use the page's CSS @page size over `paper`. */
  prefer_css_page_size?: boolean;
  /** CSS media type the page is laid out for: print (default for PDF) or screen (images). */
  media?: 'print' | 'screen';
  /** HTML for each page's header / footer; classes pageNumber, totalPages, title, date fill in. */
  header_template?: string;
  footer_template?: string;
  /** Run the page's scripts (default false). */
  javascript?: boolean;
  /** CSS selector to wait for before printing (bounded by the step's time limit). */
  wait_for?: string;
  /** Extra delay before printing, in ms. */
  wait_ms?: number;
  /** Layout width in CSS px. */
  viewport_width?: number;
  /** Device pixels per CSS px for images. */
  device_scale_factor?: number;
  /** Start every top-level heading on a new page (Markdown and text to PDF). */
  break_before_h1?: boolean;
  /** PDF to a word processor: `layout` keeps the pages as placed frames, `text` gives flowing text. */
  mode?: 'layout' | 'text';
}

type Spec =
  | { kind: 'boolean' }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'pattern'; pattern: RegExp; example: string };

interface OptionSpec {
  spec: Spec;
  description: string;
  families: readonly ConversionFamily[];
}

const MEDIA: ConversionFamily[] = ['audio', 'video'];
/** Options of pages drawn by a browser: HTML, and text formats printed through HTML. */
const WEB: ConversionFamily[] = ['document', 'text'];
const CSS_LENGTH = String.raw`\d{1,4}(\.\d{1,3})?(mm|cm|in|px)`;

/** An option of pages drawn by the browser. */
function web(spec: Spec, description: string): OptionSpec {
  return { spec, description, families: WEB };
}

function pageTemplate(part: 'header' | 'footer'): OptionSpec {
  return web(
    { kind: 'pattern', pattern: /^[^\0]{1,4000}$/, example: '<span class="pageNumber"></span>' },
    `HTML ${part} on every printed page (pageNumber, totalPages, title, date)`,
  );
}

export const OPTION_SPECS: Record<keyof ConversionOptions, OptionSpec> = {
  quality: {
    spec: { kind: 'int', min: 1, max: 100 },
    description: 'encoder quality 1-100',
    families: ['image', 'document'],
  },
  width: {
    spec: { kind: 'int', min: 1, max: 16384 },
    description: 'output width in px',
    families: ['image', 'video'],
  },
  height: {
    spec: { kind: 'int', min: 1, max: 16384 },
    description: 'output height in px',
    families: ['image', 'video'],
  },
  fit: {
    spec: { kind: 'enum', values: ['cover', 'contain', 'fill', 'inside', 'outside'] },
    description: 'how width x height is filled',
    families: ['image'],
  },
  dpi: {
    spec: { kind: 'int', min: 36, max: 600 },
    description: 'rasterising resolution',
    families: ['image', 'document', 'ocr'],
  },
  pages: {
    spec: { kind: 'pattern', pattern: /^\d+(-\d+)?(,\d+(-\d+)?)*$/, example: '1-3,5' },
    description: 'page selection, 1-based',
    families: ['document', 'text', 'ocr'],
  },
  bitrate: { spec: { kind: 'int', min: 8, max: 20000 }, description: 'bitrate in kbit/s', families: MEDIA },
  sample_rate: {
    spec: { kind: 'enum', values: ['8000', '11025', '16000', '22050', '24000', '32000', '44100', '48000'] },
    description: 'audio sample rate in Hz',
    families: MEDIA,
  },
  resolution: {
    spec: { kind: 'pattern', pattern: /^\d{2,5}x\d{2,5}$/, example: '1280x720' },
    description: 'video size WxH',
    families: ['video'],
  },
  crf: {
    spec: { kind: 'int', min: 0, max: 51 },
    description: 'video constant rate factor',
    families: ['video'],
  },
  start: {
    spec: { kind: 'number', min: 0, max: 86400 },
    description: 'start offset in seconds',
    families: MEDIA,
  },
  duration: {
    spec: { kind: 'number', min: 0.01, max: 86400 },
    description: 'duration in seconds',
    families: MEDIA,
  },
  lang: {
    spec: { kind: 'pattern', pattern: /^[a-z]{2,3}([_+-][a-zA-Z0-9_]{2,8})*$/, example: 'eng' },
    description: 'language (tesseract code for ocr, espeak voice for voice)',
    families: ['ocr', 'voice'],
  },
  voice: {
    spec: { kind: 'pattern', pattern: /^[a-z]{2,3}(-[a-z0-9]{2,8})*(\+[a-z0-9]{1,12})?$/, example: 'en-us' },
    description: 'espeak-ng voice',
    families: ['voice'],
  },
  speed: {
    spec: { kind: 'int', min: 80, max: 450 },
    description: 'speech rate in words per minute',
    families: ['voice'],
  },
  ocr: {
    spec: { kind: 'boolean' },
    description: 'true to read page text with OCR (PDF without a text layer)',
    families: ['document', 'ocr'],
  },
  sheet: {
    // Excel's own rule for sheet names: 1 to 31 characters, none of : \ / ? * [ ]
    spec: { kind: 'pattern', pattern: /^[^\p{Cc}:\\/?*[\]]{1,31}$/u, example: '2' },
    description:
      'workbook sheet a table is taken from: its name, or its 1-based position (default: the first with data)',
    families: ['spreadsheet'],
  },
  paper: web(
    {
      kind: 'pattern',
      pattern: /^(A[3-5]|Letter|Legal|Tabloid|\d{1,4}(\.\d{1,3})?x\d{1,4}(\.\d{1,3})?(mm|cm|in|px))$/i,
      example: 'A4, Letter or 210x297mm',
    },
    'paper size of a printed web page',
  ),
  orientation: web(
    { kind: 'enum', values: ['portrait', 'landscape'] },
    'page orientation of a printed web page',
  ),
  margin: web(
    { kind: 'pattern', pattern: new RegExp(`^${CSS_LENGTH}( ${CSS_LENGTH}){0,3}$`), example: '10mm 15mm' },
    'page margins of a printed web page, CSS order',
  ),
  scale: web({ kind: 'number', min: 0.1, max: 2 }, 'zoom of a printed web page'),
  print_background: web({ kind: 'boolean' }, 'print background colours and images (default true)'),
  prefer_css_page_size: web({ kind: 'boolean' }, "use the page's CSS @page size over paper"),
  media: web(
    { kind: 'enum', values: ['print', 'screen'] },
    'CSS media type of a web page (default print for PDF, screen for images)',
  ),
  header_template: pageTemplate('header'),
  footer_template: pageTemplate('footer'),
  javascript: web({ kind: 'boolean' }, "run the web page's scripts (default false)"),
  wait_for: web(
    { kind: 'pattern', pattern: /^[^\0]{1,200}$/, example: '#ready' },
    'CSS selector to wait for before printing',
  ),
  wait_ms: web({ kind: 'int', min: 0, max: 10_000 }, 'delay before printing a web page, in ms'),
  viewport_width: web({ kind: 'int', min: 200, max: 3840 }, 'layout width of a web page in CSS px'),
  device_scale_factor: web(
    { kind: 'number', min: 1, max: 4 },
    'device pixels per CSS px of a web page image',
  ),
  break_before_h1: {
    spec: { kind: 'boolean' },
    description: 'start every top-level heading on a new page (Markdown and text to PDF)',
    families: ['text'],
  },
  mode: {
    spec: { kind: 'enum', values: ['layout', 'text'] },
    description: 'pdf to docx/odt/rtf: layout (pages, pictures, positions) or text (flowing paragraphs)',
    families: ['document'],
  },
};

function invalid(message: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', message);
}

function coerce(name: string, spec: Spec, raw: unknown): number | string | boolean {
  if (spec.kind === 'boolean') {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw invalid(`option ${name} must be true or false`);
  }
  if (spec.kind === 'int' || spec.kind === 'number') {
    const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isFinite(n) || (spec.kind === 'int' && !Number.isInteger(n))) {
      throw invalid(`option ${name} must be ${spec.kind === 'int' ? 'an integer' : 'a number'}`);
    }
    if (n < spec.min || n > spec.max)
      throw invalid(`option ${name} must be between ${spec.min} and ${spec.max}`);
    return n;
  }
  const s = typeof raw === 'number' ? String(raw) : raw;
  if (typeof s !== 'string') throw invalid(`option ${name} must be a string`);
  if (spec.kind === 'enum') {
    if (!spec.values.includes(s)) throw invalid(`option ${name} must be one of ${spec.values.join(', ')}`);
    return s;
  }
  if (!spec.pattern.test(s)) throw invalid(`option ${name} must look like ${spec.example}`);
  return s;
}

/** The option names a conversion whose steps have these families accepts. */
export function allowedOptions(families: Iterable<ConversionFamily>): Set<keyof ConversionOptions> {
  const fams = new Set(families);
  const names = new Set<keyof ConversionOptions>();
  for (const [name, o] of Object.entries(OPTION_SPECS) as [keyof ConversionOptions, OptionSpec][]) {
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
  const out: Record<string, number | string | boolean> = {};
  for (const [name, value] of Object.entries(raw)) {
    const spec = OPTION_SPECS[name as keyof ConversionOptions];
    if (!spec) throw invalid(`unknown option ${name}`);
    if (!allowed.has(name as keyof ConversionOptions))
      throw invalid(`option ${name} does not apply to this conversion`);
    const v = coerce(name, spec.spec, value);
    out[name] = name === 'sample_rate' ? Number(v) : v;
  }
  return out as ConversionOptions;
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

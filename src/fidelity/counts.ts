import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { FileCounts } from '../engine/checks.js';
import { type FormatId, getFormat } from '../formats/index.js';
import { delimitedTextCounts } from './delimited.js';
import { containerPictures, MEDIA_FOLDERS, SLIDE_RELS } from './pictures.js';
import { pagesOf, type RunTool } from './tools.js';
import { readZip } from './zip.js';

const PIXEL_FORMATS: ReadonlySet<FormatId> = new Set([
  'png',
  'jpg',
  'webp',
  'avif',
  'tiff',
  'gif',
  'bmp',
  'heic',
]);

const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;
/**
 * Pictures an HTML file carries itself (data: URLs), each distinct one once. Any other address
 * points outside the upload, which engines refuse to fetch by design, so the page's output cannot
 * be asked to show it.
 */
function embeddedPictures(html: string): number {
  const urls = [...html.matchAll(/<img\b[^>]*?\ssrc\s*=\s*["']?\s*(data:[^"'\s>]*)/gi)].map((m) => m[1]);
  return new Set(urls).size;
}
const numberAfter = (text: string | undefined, re: RegExp) => {
  const m = text && re.exec(text);
  return m ? Number(m[1]) : undefined;
};

/**
 * Pictures of an RTF: every \pict but the copies writers add, a fallback for old readers
 * (\nonshppict) and a picture repeated as its frame's fill (fillBlip).
 */
function rtfPictures(rtf: string): number {
  const copies =
    count(rtf, /\{\\nonshppict\s*\{\\pict\b/g) + count(rtf, /\{\\sn fillBlip\}\s*\{\\sv \{\\pict\b/g);
  return count(rtf, /\{\\pict\b/g) - copies;
}

async function pdfCounts(path: string, run: RunTool): Promise<FileCounts> {
  // Side by side: each is a sandboxed process start, most of a small PDF's check time.
  const [info, list] = await Promise.all([
    run('pdfinfo', [path]),
    pagesOf(path, run).then((pages) => run('pdfimages', ['-list', pages])),
  ]);
  // Pictures, not placements: a logo on every page is one picture (one object), as in a DOCX's
  // media folder. Soft masks and stencils are parts of a picture, not pictures.
  const objects = list
    ?.split('\n')
    .map((l) => /^\s*\d+\s+\d+\s+image\s+(?:\S+\s+){7}(\d+)\s+\d+/.exec(l)?.[1])
    .filter((id): id is string => id !== undefined);
  const images = objects && new Set(objects).size;
  return { pages: numberAfter(info, /^Pages:\s+(\d+)/m), images };
}

/** Pages a document says it has: OOXML app.xml or ODF meta.xml statistics, slides for presentations. */
async function officeCounts(path: string, format: FormatId, rasterOnly: boolean): Promise<FileCounts> {
  const zip = await readZip(
    path,
    (n) => /^(docProps\/app\.xml|meta\.xml|content\.xml|xl\/workbook\.xml)$/.test(n) || SLIDE_RELS.test(n),
  );
  const { names, texts } = zip;
  const out: FileCounts = {};
  const images = containerPictures(zip, format, rasterOnly);
  if (images !== undefined) out.images = images;
  const app = texts.get('docProps/app.xml');
  const meta = texts.get('meta.xml');
  const content = texts.get('content.xml');
  if (format === 'pptx') out.pages = names.filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n)).length;
  else if (format === 'odp' && content) out.pages = count(content, /<draw:page[\s>]/g);
  else if (format === 'docx') out.pages = numberAfter(app, /<Pages>(\d+)<\/Pages>/);
  else if (format === 'odt') out.pages = numberAfter(meta, /meta:page-count="(\d+)"/);
  if (format === 'ods' && content) {
    out.sheets = count(content, /<table:table[\s>]/g);
    const first = /<table:table[\s>][\s\S]*?<\/table:table>/.exec(content)?.[0] ?? '';
    out.rows = [...first.matchAll(/<table:table-row\b([^>]*)>([\s\S]*?)<\/table:table-row>/g)]
      .filter(([, , cells]) => /<text:p\b/.test(cells ?? ''))
      .reduce((n, [, attrs]) => n + (numberAfter(attrs, /table:number-rows-repeated="(\d+)"/) ?? 1), 0);
  }
  return out;
}

/**
 * Sheets and first-sheet rows of an XLSX from its XML parts (the zip reader's caps apply), never
 * loading the workbook: a source is a stranger's file.
 */
async function workbookCounts(path: string): Promise<FileCounts> {
  const { texts } = await readZip(path, (n) => n === 'xl/workbook.xml' || n === 'xl/worksheets/sheet1.xml');
  const book = texts.get('xl/workbook.xml');
  const first = texts.get('xl/worksheets/sheet1.xml');
  if (book === undefined) return {};
  // Rows that hold at least one cell; empty formatted rows are not data.
  const rows = first ? count(first, /<row\b[^>]*>\s*<c\b/g) : 0;
  return { sheets: count(book, /<sheet\b/g), rows };
}

async function delimitedCounts(path: string, format: FormatId): Promise<FileCounts> {
  return delimitedTextCounts(await readFile(path, 'utf8'), format);
}

type Probe = { format?: { duration?: string }; streams?: Stream[] };
type Stream = {
  width?: number;
  height?: number;
  duration?: string;
  sample_rate?: string;
  nb_read_packets?: string;
};

const seconds = (s: number) => Math.round(s * 100) / 100;

async function probe(run: RunTool, path: string, args: string[]): Promise<Probe | undefined> {
  const out = await run('ffprobe', ['-v', 'error', ...args, '-of', 'json', path]);
  return out ? (JSON.parse(out) as Probe) : undefined;
}

/**
 * Length, and for video size and frames. `audioTrack` asks for the audio stream's length instead
 * of the file's (a video's sound may be shorter than its picture). Raw AAC has no index, so its
 * length is counted from its packets (1024 samples each) rather than estimated from the bitrate.
 */
async function mediaCounts(
  path: string,
  format: FormatId,
  run: RunTool,
  video: boolean,
  audioTrack: boolean,
) {
  const counts: FileCounts = {};
  if (format === 'aac') {
    const a = (
      await probe(run, path, [
        '-select_streams',
        'a:0',
        '-count_packets',
        '-show_entries',
        'stream=sample_rate,nb_read_packets',
      ])
    )?.streams?.[0];
    const duration = (Number(a?.nb_read_packets) * 1024) / Number(a?.sample_rate);
    if (Number.isFinite(duration)) counts.duration_s = seconds(duration);
    return counts;
  }
  const info = await probe(run, path, ['-show_entries', 'format=duration']);
  const track = audioTrack
    ? (await probe(run, path, ['-select_streams', 'a:0', '-show_entries', 'stream=duration']))?.streams?.[0]
        ?.duration
    : undefined;
  const duration = Number(track ?? info?.format?.duration);
  if (Number.isFinite(duration)) counts.duration_s = seconds(duration);
  if (!video) return counts;
  const v = (
    await probe(run, path, [
      '-select_streams',
      'v:0',
      '-count_packets',
      '-show_entries',
      'stream=width,height,nb_read_packets',
    ])
  )?.streams?.[0];
  if (v?.width) counts.width = v.width;
  if (v?.height) counts.height = v.height;
  if (v?.nb_read_packets) counts.frames = Number(v.nb_read_packets);
  return counts;
}

/**
 * An audio file's length as decoding it gives: a header may claim hours for a file of a few
 * frames (a stale Xing or TOC frame count, a FLAC STREAMINFO total), and a LAME tag's gapless
 * trim applies only when decoding. Costs a decode, so it is asked for only when lengths disagree.
 */
export async function decodedSeconds(path: string, run: RunTool): Promise<number | undefined> {
  const out = await run('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-nostats',
    '-i',
    path,
    '-vn',
    '-progress',
    'pipe:1',
    '-f',
    'null',
    '-',
  ]);
  const us = out && [...out.matchAll(/^out_time_us=(\d+)$/gm)].at(-1)?.[1];
  return us ? seconds(Number(us) / 1e6) : undefined;
}

async function pixelCounts(path: string): Promise<FileCounts> {
  const meta = await sharp(path, { pages: 1, limitInputPixels: false }).metadata();
  // The size a viewer shows: EXIF orientations 5 to 8 turn a photo a quarter, so its stored
  // width and height swap when the conversion turns it upright. Frames of an animation stack.
  const size =
    meta.pages && meta.pages > 1
      ? { width: meta.width, height: meta.pageHeight ?? meta.height }
      : { width: meta.autoOrient.width, height: meta.autoOrient.height };
  if (!meta.pages || meta.pages < 2) return size;
  // An animation's length is the sum of its frame delays (milliseconds).
  const delays = meta.delay?.reduce((a, b) => a + b, 0);
  return { ...size, frames: meta.pages, ...(delays ? { duration_s: Math.round(delays / 10) / 100 } : {}) };
}

/** How a source is counted for its target: what the target can show of it. */
export interface CountFor {
  /** A video's length is its sound's (for a conversion to audio). */
  audioTrack?: boolean;
  /** Pictures that are pixels, not drawings (for a PDF, which draws vector pictures as paths). */
  rasterOnly?: boolean;
}

/** Counts what a file of `format` shows; fields that cannot be read are left out, never guessed. */
export async function countFile(
  path: string,
  format: FormatId,
  run: RunTool,
  { audioTrack = false, rasterOnly = false }: CountFor = {},
): Promise<FileCounts> {
  try {
    if (format === 'pdf' || format === 'pdfa') return await pdfCounts(path, run);
    if (format === 'xlsx') return await workbookCounts(path);
    if (format === 'csv' || format === 'tsv') return await delimitedCounts(path, format);
    if (format in MEDIA_FOLDERS) return await officeCounts(path, format, rasterOnly);
    if (format === 'rtf') return { images: rtfPictures(await readFile(path, 'latin1')) };
    if (format === 'html') return { images: embeddedPictures(await readFile(path, 'utf8')) };
    if (PIXEL_FORMATS.has(format)) return await pixelCounts(path);
    const family = getFormat(format)?.family;
    if (family === 'audio' || family === 'video')
      return await mediaCounts(path, format, run, family === 'video', audioTrack && family === 'video');
  } catch {
    // A file this module cannot parse has no counts; the conversion's own checks judged it already.
  }
  return {};
}

import type { FileCounts } from '../engine/checks.js';
import type { ConversionOptions } from '../engine/options.js';
import { type FormatId, getFormat } from '../formats/index.js';
import { countFile, decodedSeconds } from './counts.js';
import { carriesWords, textOf, totalWords, wordCounts, wordsKept } from './text.js';
import type { RunTool } from './tools.js';

/**
 * The floors a conversion must reach, per measure (docs/fidelity.md explains each one).
 * Words: recall of the source's words in the output's text.
 */
export const FLOORS = {
  words_kept: 0.95,
  /** Pages of a document's PDF against the pages the source says it has. */
  pages_slack: 1,
  /** Audio and video length, in seconds either way. */
  duration_slack_s: 0.2,
  /**
   * What an MP3 adds on top: the encoder's delay and the last frame's padding, up to three frames,
   * which ffprobe counts. Frames are longest at 8 kHz (576 samples): 0.216 s, 0.22 as measured.
   */
  mp3_padding_s: 0.22,
} as const;

export type MeasureName =
  | 'words_kept'
  | 'pages'
  | 'images'
  | 'sheets'
  | 'rows'
  | 'size'
  | 'duration_s'
  | 'frames';

export interface FidelityMeasure {
  name: MeasureName;
  source: number | string;
  output: number | string;
  /** The floor in words, e.g. `>= 0.95` or `source ± 1`. */
  floor: string;
  ok: boolean;
}

export interface FidelityInput {
  from: FormatId;
  to: FormatId;
  source: string;
  /** The conversion's output files in order (pages in page order). */
  outputs: readonly string[];
  /** The conversion's options: size, trim and page options turn off the measures they change. */
  options?: ConversionOptions;
  /** The source's own page count where known better than the file says (its PDF rendering). */
  sourcePages?: number;
  signal?: AbortSignal;
}

export interface FidelityReport {
  from: FormatId;
  to: FormatId;
  measures: FidelityMeasure[];
  /** False when any measure is below its floor. */
  ok: boolean;
}

/** What both sides show: counts and words of the source and of the (first) output. */
export interface Observed {
  source: FileCounts;
  output: FileCounts;
  outputs: number;
  sourceWords?: Map<string, number>;
  outputWords?: Map<string, number>;
}

export const PDFS: ReadonlySet<FormatId> = new Set(['pdf', 'pdfa']);
/** Targets that hold pictures; text, data and single-file HTML targets hold none by design. */
export const PICTURE_TARGETS: ReadonlySet<FormatId> = new Set([
  'pdf',
  'pdfa',
  'docx',
  'odt',
  'rtf',
  'pptx',
  'odp',
  'epub',
]);
const MULTI_SHEET: ReadonlySet<FormatId> = new Set(['xlsx', 'ods', 'xls']);

const familyOf = (f: FormatId) => getFormat(f)?.family;
const round2 = (n: number) => Math.round(n * 100) / 100;
/** How far an output's length may be from its source's (an MP3 adds padding frames). */
const durationSlack = (to: FormatId) =>
  round2(FLOORS.duration_slack_s + (to === 'mp3' ? FLOORS.mp3_padding_s : 0));

/** The words of a file, when its format's text is readable and its family carries text. */
export async function wordsOf(path: string, format: FormatId, run: RunTool) {
  if (!carriesWords(format)) return undefined;
  const text = await textOf(path, format, run).catch(() => undefined);
  return text === undefined ? undefined : wordCounts(text);
}

/** Counts and words of the source and the outputs' first file. */
export async function observe(input: FidelityInput, run: RunTool, withSource = true): Promise<Observed> {
  const first = input.outputs[0];
  if (!first) throw new Error('a conversion without outputs has nothing to measure');
  const [source, output, sourceWords, outputWords] = await Promise.all([
    withSource
      ? countFile(input.source, input.from, run, {
          audioTrack: familyOf(input.to) === 'audio',
          rasterOnly: PDFS.has(input.to),
        })
      : Promise.resolve<FileCounts>({}),
    countFile(first, input.to, run),
    withSource ? wordsOf(input.source, input.from, run) : Promise.resolve(undefined),
    wordsOf(first, input.to, run),
  ]);
  if (input.sourcePages !== undefined) source.pages = input.sourcePages;
  // An audio header's length may be wrong (a test file claiming hours): a length that disagrees
  // with the output's is measured again by decoding the source.
  if (
    withSource &&
    familyOf(input.from) === 'audio' &&
    source.duration_s !== undefined &&
    output.duration_s !== undefined &&
    Math.abs(source.duration_s - output.duration_s) > durationSlack(input.to)
  )
    source.duration_s = (await decodedSeconds(input.source, run)) ?? source.duration_s;
  return { source, output, outputs: input.outputs.length, sourceWords, outputWords };
}

function measure(
  name: MeasureName,
  source: number | string,
  output: number | string,
  floor: string,
  ok: boolean,
) {
  return { name, source, output, floor, ok };
}

/** The measures that apply to a pair, judged against the floors. */
export function judge(input: FidelityInput, seen: Observed): FidelityMeasure[] {
  const { from, to } = input;
  const o = input.options ?? {};
  const out: FidelityMeasure[] = [];
  const src = seen.source;
  const dst = seen.output;
  const fromFamily = familyOf(from);
  const toFamily = familyOf(to);

  const recall = seen.sourceWords && seen.outputWords && wordsKept(seen.sourceWords, seen.outputWords);
  // A CSV holds one sheet of a workbook by design; its rows are judged instead.
  const oneSheetOfMany = (src.sheets ?? 1) > 1 && !MULTI_SHEET.has(to);
  if (recall !== undefined && !o.pages && seen.outputs === 1 && !oneSheetOfMany) {
    const r = Math.round(recall * 1000) / 1000;
    out.push(
      measure(
        'words_kept',
        totalWords(seen.sourceWords!),
        r,
        `>= ${FLOORS.words_kept}`,
        r >= FLOORS.words_kept,
      ),
    );
  }

  if (src.pages !== undefined && !o.pages) {
    // Pages become images one file each; a one-page PDF gives one.
    const pageImages = toFamily === 'image' && (seen.outputs > 1 || from === 'pdf');
    if (pageImages || (from === 'pdf' && (to === 'pptx' || to === 'odp'))) {
      const got = pageImages ? seen.outputs : (dst.pages ?? 0);
      out.push(measure('pages', src.pages, got, '= source', got === src.pages));
    } else if (dst.pages !== undefined && (PDFS.has(to) || PDFS.has(from))) {
      const ok = Math.abs(dst.pages - src.pages) <= FLOORS.pages_slack;
      out.push(measure('pages', src.pages, dst.pages, `source ± ${FLOORS.pages_slack}`, ok));
    }
  }

  // Pictures kept by document to document (and to PDF); text, data and single-file HTML targets
  // hold none by design.
  if (PICTURE_TARGETS.has(to) && src.images !== undefined && dst.images !== undefined && src.images > 0) {
    out.push(measure('images', src.images, dst.images, '>= source', dst.images >= src.images));
  }

  if (src.sheets !== undefined && dst.sheets !== undefined) {
    if (MULTI_SHEET.has(from) && MULTI_SHEET.has(to))
      out.push(measure('sheets', src.sheets, dst.sheets, '= source', src.sheets === dst.sheets));
    if (src.rows !== undefined && dst.rows !== undefined)
      out.push(measure('rows', src.rows, dst.rows, '= source (first sheet)', src.rows === dst.rows));
  }

  const resized = o.width !== undefined || o.height !== undefined || o.resolution !== undefined;
  const sameKind = fromFamily === toFamily || (from === 'gif' && toFamily === 'video');
  if (!resized && sameKind && src.width && src.height && dst.width && dst.height) {
    // Video encoders want even sizes, so a GIF may lose its odd last row or column.
    const slack = fromFamily === toFamily ? 0 : 1;
    const ok = Math.abs(src.width - dst.width) <= slack && Math.abs(src.height - dst.height) <= slack;
    out.push(
      measure(
        'size',
        `${src.width}x${src.height}`,
        `${dst.width}x${dst.height}`,
        slack ? 'source ± 1 px' : '= source',
        ok,
      ),
    );
  }

  const trimmed = o.start !== undefined || o.duration !== undefined || o.speed !== undefined;
  if (!trimmed && src.duration_s !== undefined && dst.duration_s !== undefined) {
    const slack = durationSlack(to);
    const ok = Math.abs(src.duration_s - dst.duration_s) <= slack + 1e-9;
    out.push(measure('duration_s', src.duration_s, dst.duration_s, `source ± ${slack} s`, ok));
  }

  // A still picture made from an animation has one frame (its counts say none). A video's
  // frames are not judged, its duration is: a GIF is written at a lower frame rate by design, and
  // an encoder drops frames stamped with the same time.
  const frames = dst.frames ?? (dst.width !== undefined ? 1 : undefined);
  const animates = to === 'gif' || to === 'webp' || toFamily === 'video';
  const fromAnimation = fromFamily !== 'video';
  if (animates && fromAnimation && src.frames !== undefined && src.frames > 1 && frames !== undefined) {
    out.push(measure('frames', src.frames, frames, '>= source', frames >= src.frames));
  }
  return out;
}

/**
 * The fidelity of one conversion: what the source showed against what its output shows (words,
 * pages, pictures, sheets and rows, pixel size, duration, frames), each judged against its floor.
 * Measures that do not apply to the pair, or that cannot be read, are left out.
 */
export async function judgeFidelity(input: FidelityInput, run: RunTool): Promise<FidelityReport> {
  const measures = judge(input, await observe(input, run));
  return { from: input.from, to: input.to, measures, ok: measures.every((m) => m.ok) };
}

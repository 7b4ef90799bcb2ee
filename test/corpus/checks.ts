/**
 * What the real-world run converts each format to, and how it decides that an output really is
 * the target: an independent tool (`file`, ffprobe, pdfinfo) or a parser, never our detection.
 */
import { readFile } from 'node:fs/promises';
import { execa } from 'execa';
import Papa from 'papaparse';
import { parse as parseYaml } from 'yaml';
import { type CaseContext, type ContentVerdict, identifiersCheck, textChecks } from './content.js';
import { picturesCheck, structureCheck } from './content-counts.js';

const DOCUMENT = ['pdf', 'txt', 'html'];
const SPREADSHEET = ['pdf', 'csv'];
const IMAGE = ['png', 'jpg', 'webp', 'pdf'];
const AUDIO = ['mp3', 'ogg', 'wav'];
const VIDEO = ['mp4', 'webm', 'mp3', 'gif'];

/** The targets people usually want for each source format; the source itself is skipped. */
export const USUAL_TARGETS: Record<string, string[]> = {
  doc: DOCUMENT,
  docx: DOCUMENT,
  odt: DOCUMENT,
  rtf: DOCUMENT,
  html: ['pdf', 'md', 'txt'],
  md: ['html', 'pdf', 'docx'],
  rst: ['html', 'pdf'],
  tex: ['pdf', 'html'],
  txt: ['pdf', 'html'],
  pdf: ['txt', 'png', 'docx'],
  ps: ['pdf', 'png'],
  eps: ['pdf', 'png'],
  xls: SPREADSHEET,
  xlsx: SPREADSHEET,
  ods: SPREADSHEET,
  csv: ['xlsx', 'json'],
  tsv: ['csv', 'xlsx'],
  ppt: ['pdf'],
  pptx: ['pdf'],
  odp: ['pdf'],
  png: IMAGE,
  jpg: IMAGE,
  webp: IMAGE,
  tiff: IMAGE,
  bmp: IMAGE,
  avif: IMAGE,
  heic: IMAGE,
  ico: ['png'],
  psd: ['png', 'jpg'],
  gif: ['png', 'mp4', 'webm'],
  svg: ['png', 'pdf'],
  mp3: AUDIO,
  wav: AUDIO,
  ogg: AUDIO,
  flac: AUDIO,
  m4a: AUDIO,
  opus: AUDIO,
  mp4: VIDEO,
  webm: VIDEO,
  mkv: VIDEO,
  mov: VIDEO,
  avi: VIDEO,
  json: ['yaml', 'csv'],
  jsonl: ['json', 'yaml'],
  yaml: ['json'],
  toml: ['json'],
  xml: ['json'],
  epub: ['pdf', 'txt'],
  // Source code is read highlighted on a page or on paper.
  ...Object.fromEntries(
    [
      'c',
      'cpp',
      'css',
      'go',
      'java',
      'js',
      'lua',
      'makefile',
      'php',
      'pl',
      'py',
      'rb',
      'rs',
      'sh',
      'sql',
      'ts',
    ].map((id) => [id, ['html', 'pdf']]),
  ),
};

export function targetsFor(format: string): string[] {
  return (USUAL_TARGETS[format] ?? []).filter((t) => t !== format);
}

/** A check of one output: undefined when it passes, else why not. */
export type OutputCheck = (file: string, target: string) => Promise<string | undefined>;

const MIME: Record<string, RegExp> = {
  png: /^image\/png$/,
  jpg: /^image\/jpeg$/,
  webp: /^image\/webp$/,
  gif: /^image\/gif$/,
  tiff: /^image\/tiff$/,
  avif: /^image\/avif$/,
  docx: /wordprocessingml\.document$/,
  xlsx: /spreadsheetml\.sheet$/,
  pptx: /presentationml\.presentation$/,
  odt: /opendocument\.text$/,
  epub: /^application\/epub\+zip$/,
  html: /^text\/(html|xml|plain)$/,
};

/** Text targets: valid UTF-8 without NULs. A document without text rightly gives an empty one. */
async function checkText(file: string): Promise<string | undefined> {
  const bytes = await readFile(file);
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.includes('\0') ? 'NUL bytes in text' : undefined;
  } catch {
    return 'not UTF-8 text';
  }
}

/** ffprobe's format_name and the stream kinds an output must have. */
const MEDIA: Record<string, { format: RegExp; streams: string[] }> = {
  mp3: { format: /^mp3$/, streams: ['audio'] },
  ogg: { format: /^ogg$/, streams: ['audio'] },
  wav: { format: /^wav$/, streams: ['audio'] },
  mp4: { format: /mp4/, streams: [] },
  webm: { format: /webm/, streams: [] },
};

async function fileMime(file: string): Promise<string> {
  return (await execa('file', ['-b', '--mime-type', file])).stdout.trim();
}

async function checkPdf(file: string): Promise<string | undefined> {
  const info = await execa('pdfinfo', [file], { reject: false });
  const pages = Number(/^Pages:\s+(\d+)/m.exec(info.stdout)?.[1] ?? 0);
  return info.exitCode === 0 && pages > 0
    ? undefined
    : `pdfinfo: ${info.stderr.split('\n')[0] || 'no pages'}`;
}

async function checkMedia(file: string, target: string): Promise<string | undefined> {
  const want = MEDIA[target]!;
  const probe = await execa(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'format=format_name:stream=codec_type', '-of', 'json', file],
    { reject: false },
  );
  if (probe.exitCode !== 0) return `ffprobe: ${probe.stderr.split('\n')[0]}`;
  const json = JSON.parse(probe.stdout) as {
    format?: { format_name?: string };
    streams?: { codec_type: string }[];
  };
  const name = json.format?.format_name ?? '';
  if (!want.format.test(name)) return `ffprobe says ${name}`;
  const kinds = new Set((json.streams ?? []).map((s) => s.codec_type));
  if (kinds.size === 0) return 'ffprobe: no streams';
  const lacking = want.streams.filter((k) => !kinds.has(k));
  return lacking.length ? `ffprobe: no ${lacking.join(', ')} stream` : undefined;
}

async function checkParsed(file: string, target: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8');
  if (text.trim() === '') return 'empty output';
  try {
    if (target === 'json') JSON.parse(text);
    else if (target === 'yaml') parseYaml(text);
    else {
      const rows = Papa.parse(text, { skipEmptyLines: true });
      if (rows.data.length === 0) return 'csv: no rows';
    }
  } catch (e) {
    return `${target} parser: ${(e as Error).message.split('\n')[0]}`;
  }
  return undefined;
}

/** The format check every case gets. */
export const isTarget: OutputCheck = async (file, target) => {
  if (target === 'pdf') return checkPdf(file);
  if (target in MEDIA) return checkMedia(file, target);
  if (target === 'json' || target === 'yaml' || target === 'csv') return checkParsed(file, target);
  if (target === 'txt' || target === 'md') return checkText(file);
  const want = MIME[target];
  if (!want) return `no check for ${target}`;
  const mime = await fileMime(file);
  return want.test(mime) ? undefined : `file says ${mime}`;
};

/**
 * Content checks run on every output that passed the format check: words kept, no mojibake,
 * pictures kept, structure kept (test/corpus/content.ts, content-counts.ts). Each gives the verdicts that apply to
 * the case; a case with none has no content measure. A check that throws is a failed verdict.
 */
export const CASE_CHECKS: Array<(c: CaseContext) => Promise<ContentVerdict[]>> = [
  textChecks,
  identifiersCheck,
  picturesCheck,
  structureCheck,
];

/** Time each content check took, summed over cases (milliseconds). */
export const CHECK_MS = new Map<string, number>();

export async function contentVerdicts(c: CaseContext): Promise<ContentVerdict[]> {
  const all: ContentVerdict[] = [];
  for (const check of CASE_CHECKS) {
    const started = Date.now();
    try {
      all.push(...(await check(c)));
      CHECK_MS.set(check.name, (CHECK_MS.get(check.name) ?? 0) + Date.now() - started);
    } catch (e) {
      all.push({
        check: 'structure',
        ok: false,
        why: `check crashed: ${(e as Error).message.split('\n')[0]}`,
      });
    }
  }
  return all;
}

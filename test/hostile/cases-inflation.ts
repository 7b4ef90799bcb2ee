import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostileCase } from './harness.js';

/**
 * The output cap hostile.test.ts runs with (FILECONV_ENGINE_OUTPUT_LIMIT): small, so an input that
 * expands without bound reaches it in seconds; the default (1 GiB) stops the same inputs later.
 */
export const HOSTILE_OUTPUT_LIMIT = '32M';

/** Runs a tool that writes `name` in a scratch folder (after `setup`) and returns the file's bytes. */
function made(
  tool: string,
  args: (dir: string) => string[],
  name: string,
  setup?: (dir: string) => void,
): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-hostile-make-'));
  try {
    setup?.(dir);
    execFileSync(tool, args(dir), { stdio: 'ignore', timeout: 120_000 });
    return readFileSync(join(dir, name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ffmpeg = (input: string[], output: string[], name: string) =>
  made(
    'ffmpeg',
    (dir) => [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      ...input,
      ...output,
      join(dir, name),
    ],
    name,
  );

/** A real PDF of `count` blank pages, written by ghostscript from a PostScript loop. */
const blankPagesPdf = (count: number) =>
  made(
    'gs',
    (dir) => [
      '-q',
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-sDEVICE=pdfwrite',
      `-sOutputFile=${join(dir, 'out.pdf')}`,
      join(dir, 'blank.ps'),
    ],
    'out.pdf',
    (dir) => writeFileSync(join(dir, 'blank.ps'), `%!PS\n${count} { showpage } repeat\n`),
  );

/** 2,500 rows of zeros under 200 column names of 200 characters: 1 MB that is 100 MB as JSON. */
function expandingCsv(): string {
  const names = Array.from({ length: 200 }, (_, i) => `c${i}_${'x'.repeat(196)}`.slice(0, 200));
  const row = Array.from({ length: 200 }, () => '0').join(',');
  return `${names.join(',')}\n${Array.from({ length: 2500 }, () => row).join('\n')}\n`;
}

/** Small inputs whose results would be gigabytes: each must end in OUTPUT_TOO_LARGE, leaving nothing. */
export const inflationCases: HostileCase[] = [
  {
    name: 'inflate: ten minutes of silent FLAC to WAV',
    attack: 'a few kilobytes of FLAC silence that decode to 115 MB of PCM (stopped by the file-size cap)',
    from: 'flac',
    to: 'wav',
    make: () => ffmpeg(['anullsrc=r=48000:cl=stereo', '-t', '600'], ['-c:a', 'flac'], 'silence.flac'),
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: three-hour video to GIF',
    attack: 'a tiny three-hour video whose GIF would hold 108,000 whole frames (refused from its duration)',
    from: 'mp4',
    to: 'gif',
    make: () =>
      ffmpeg(
        ['color=black:size=16x16:rate=1', '-t', '10800'],
        ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
        'long.mp4',
      ),
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: video with a silent audio track of many frames to WAV',
    attack: 'an mkv of a black frame and an hour of silent audio, extracted to PCM (file-size cap)',
    from: 'mkv',
    to: 'wav',
    make: () =>
      ffmpeg(
        ['anullsrc=r=48000:cl=stereo', '-f', 'lavfi', '-i', 'color=black:size=16x16:rate=1', '-t', '3600'],
        ['-c:a', 'flac', '-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
        'quiet.mkv',
      ),
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: PDF of 10,000 real blank pages to PNG',
    attack: 'a 10,000-page PDF (every page a real object) rasterised one PNG per page (page cap)',
    from: 'pdf',
    to: 'png',
    make: () => blankPagesPdf(10_000),
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: PDF of 10,000 real blank pages through ghostscript',
    attack: 'the same PDF given to ghostscript directly, to JPEG pages (page cap)',
    from: 'pdf',
    to: 'jpg',
    engine: 'ghostscript',
    make: () => blankPagesPdf(10_000),
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: PDF of 10,000 real blank pages split into single pages',
    attack: 'qpdf asked for one file per page of a 10,000-page PDF (part cap, checked before writing)',
    from: 'pdf',
    to: 'pdf',
    engine: 'qpdf',
    options: { split: 1 },
    make: () => blankPagesPdf(10_000),
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: PDF of 10,000 real blank pages made searchable with OCR',
    attack: 'ocrmypdf asked to draw and read 10,000 pages (page cap, checked before any page is read)',
    from: 'pdf',
    to: 'pdf',
    engine: 'ocrmypdf',
    options: { ocr: true },
    make: () => blankPagesPdf(10_000),
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: SVG with a 100,000 px canvas to PNG',
    attack: 'a one-rectangle SVG declaring a 100000 x 100000 canvas: 40 GB of pixels (render cap)',
    from: 'svg',
    to: 'png',
    engine: 'rsvg',
    make: () =>
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="10" height="10"/></svg>',
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: CSV with long column names to JSON',
    attack: 'every cell repeats its 200-character column name in JSON: 1 MB to 100 MB (data engine cap)',
    from: 'csv',
    to: 'json',
    make: expandingCsv,
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
  {
    name: 'inflate: CSV with long column names to XML',
    attack: 'the same CSV as XML, where every cell is an element named after its column (data engine cap)',
    from: 'csv',
    to: 'xml',
    make: expandingCsv,
    allowed: { codes: ['OUTPUT_TOO_LARGE'] },
  },
];

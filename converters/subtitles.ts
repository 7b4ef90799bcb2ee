import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineConverter, edgesBetween } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';

/** The demuxer each subtitle source is read with (forced, as for audio and video). */
const DEMUXER: Record<FormatId, string> = {
  srt: 'srt',
  vtt: 'webvtt',
  ass: 'ass',
  sub: 'microdvd',
  lrc: 'lrc',
  smi: 'sami',
};

/** Encoder and muxer per target. FFmpeg writes no MicroDVD or SAMI, and reads no TTML. */
const TARGET: Record<FormatId, string[]> = {
  srt: ['-c:s', 'subrip', '-f', 'srt'],
  vtt: ['-c:s', 'webvtt', '-f', 'webvtt'],
  ass: ['-c:s', 'ass', '-f', 'ass'],
  lrc: ['-c:s', 'subrip', '-f', 'lrc'],
  ttml: ['-c:s', 'ttml', '-f', 'ttml'],
  // Text: written as SubRip, then the cue numbers and timings are dropped (toText).
  txt: ['-c:s', 'subrip', '-f', 'srt'],
};

const edges = edgesBetween(Object.keys(DEMUXER), Object.keys(TARGET), (from, to) => ({
  family: 'text',
  // Styling (ASS), positions and end times (LRC keeps only starts) do not all carry over.
  lossy: !(from === 'srt' && to === 'vtt'),
  cost: 3,
}));

/** The lines of each cue, cues a blank line apart: what was said, without numbers and timings. */
export function subripToText(srt: string): string {
  const cues = srt.replace(/\r\n/g, '\n').split(/\n{2,}/);
  const texts = cues
    .map((cue) => cue.split('\n').filter((l, i) => !(i === 0 && /^\d+$/.test(l)) && !/-->/.test(l)))
    // SubRip's font tags (FFmpeg writes SSA styles as <font>, <b>, <i>) are not words.
    .map((lines) =>
      lines
        .join('\n')
        .replace(/<\/?[a-z][^>]*>/gi, '')
        .trim(),
    )
    .filter((t) => t !== '');
  return texts.length ? `${texts.join('\n\n')}\n` : '';
}

const UNREADABLE = /Invalid data found when processing input|could not find codec parameters/i;

export default defineConverter({
  name: 'ffmpeg-subtitles',
  description: 'FFmpeg: subtitles between SubRip, WebVTT, ASS/SSA, MicroDVD, LRC, SAMI and TTML, and to text',
  packages: ['ffmpeg'],
  edges,
  concurrency: 2,
  timeoutMs: 60_000,
  probe: () => probeBinary(['ffmpeg'], ['-hide_banner', '-version'], /ffmpeg version (\S+)/),
  async run({ edge, input, outDir }, ctx) {
    const ffmpeg = findBinary(['ffmpeg']);
    if (!ffmpeg) throw new FileconvError('CONVERT_FAILED', 'ffmpeg is not installed.');
    const demuxer = DEMUXER[edge.from];
    const target = TARGET[edge.to];
    if (!demuxer || !target)
      throw new FileconvError('CONVERT_FAILED', `ffmpeg cannot convert ${edge.from} to ${edge.to}.`);
    const written = join(ctx.workDir, `subtitles.${edge.to === 'txt' ? 'srt' : extensionOf(edge.to)}`);
    const args = (format: string, file: string) => [
      ...[
        '-hide_banner',
        '-nostdin',
        '-y',
        '-protocol_whitelist',
        'file',
        '-f',
        format,
        '-i',
        `file:${file}`,
      ],
      '-map',
      '0:s:0',
    ];
    try {
      // FFmpeg's TTML encoder takes no SSA v4.00 styling: such a file goes through SubRip first.
      if (edge.from === 'ass' && edge.to === 'ttml') {
        const srt = join(ctx.workDir, 'plain.srt');
        await runProcess(ffmpeg, [...args(demuxer, input), ...TARGET.srt!, srt], ctx);
        await runProcess(ffmpeg, [...args('srt', srt), ...target, written], ctx);
      } else await runProcess(ffmpeg, [...args(demuxer, input), ...target, written], ctx);
    } catch (e) {
      if (e instanceof EngineProcessError && UNREADABLE.test(e.output))
        throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
      throw e;
    }
    if (!(await stat(written).catch(() => undefined))?.size)
      throw new FileconvError('MALFORMED_DOCUMENT', `No subtitle could be read from the ${edge.from} file.`);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    const text = await readFile(written, 'utf8');
    await writeFile(output, edge.to === 'txt' ? subripToText(text) : text);
    ctx.progress(1);
    return { files: [output] };
  },
});

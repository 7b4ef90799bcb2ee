import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ConversionEdge,
  defineConverter,
  edgesBetween,
  type StepContext,
} from '../src/engine/contract.js';
import { defineOption, int, like, num, type OptionValues, oneOfNumbers } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { compress, height, width } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { binaryOutput, EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { keepSmaller, refuseLossless, VIDEO_PRESETS } from './_compress.js';
import { READ_ONLY_AUDIO, READ_ONLY_VIDEO } from './_ffmpeg-formats.js';

const AUDIO = ['mp3', 'wav', 'ogg', 'flac', 'm4a', 'aac', 'opus'] as const;
const VIDEO = ['mp4', 'webm', 'mkv', 'mov', 'avi'] as const;
const LOSSLESS_AUDIO = new Set<FormatId>(['wav', 'flac']);

/**
 * The demuxer each declared source is read with. Forcing it (rather than letting ffmpeg sniff)
 * means a playlist or concat script renamed to .mp4 is parsed as MP4 and fails, instead of being
 * followed to other files or URLs.
 */
const DEMUXER: Record<string, string> = {
  mp3: 'mp3',
  wav: 'wav',
  ogg: 'ogg',
  opus: 'ogg',
  flac: 'flac',
  m4a: 'mov',
  mp4: 'mov',
  mov: 'mov',
  aac: 'aac',
  webm: 'matroska',
  mkv: 'matroska',
  avi: 'avi',
  gif: 'gif',
  ...READ_ONLY_AUDIO,
  ...READ_ONLY_VIDEO,
};

/** Codec and muxer arguments per target; the muxer is always named. */
const AUDIO_TARGET: Record<string, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-f', 'mp3'],
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  ogg: ['-c:a', 'libvorbis', '-f', 'ogg'],
  opus: ['-c:a', 'libopus', '-f', 'opus'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
  m4a: ['-c:a', 'aac', '-f', 'ipod'],
  aac: ['-c:a', 'aac', '-f', 'adts'],
};

const X264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'];
const VIDEO_TARGET: Record<string, { video: string[]; audio: string[]; muxer: string[] }> = {
  mp4: { video: X264, audio: ['-c:a', 'aac'], muxer: ['-movflags', '+faststart', '-f', 'mp4'] },
  mov: { video: X264, audio: ['-c:a', 'aac'], muxer: ['-f', 'mov'] },
  mkv: { video: X264, audio: ['-c:a', 'aac'], muxer: ['-f', 'matroska'] },
  // VP8 in realtime mode: far quicker than VP9 and every browser plays it.
  webm: {
    video: ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-pix_fmt', 'yuv420p'],
    audio: ['-c:a', 'libopus'],
    muxer: ['-f', 'webm'],
  },
  avi: { video: ['-c:v', 'mpeg4', '-q:v', '5'], audio: ['-c:a', 'libmp3lame'], muxer: ['-f', 'avi'] },
};

const REQUIRED_ENCODERS = [
  'libmp3lame',
  'pcm_s16le',
  'libvorbis',
  'libopus',
  'flac',
  'aac',
  'libx264',
  'libvpx',
  'mpeg4',
  'gif',
];

const GIF_MAX_FPS = 10;
const GIF_MAX_WIDTH = 480;
/** Frames in one GIF at most: five minutes at GIF_MAX_FPS. A GIF stores every frame whole. */
export const GIF_MAX_FRAMES = 3000;

/** Refuses a GIF longer than GIF_MAX_FRAMES up front, before ffmpeg writes any of it. */
function checkGifLength(seconds: number): void {
  const frames = Math.ceil(seconds * GIF_MAX_FPS);
  if (frames > GIF_MAX_FRAMES) {
    throw new FileconvError(
      'OUTPUT_TOO_LARGE',
      `The GIF would have ${frames} frames; at most ${GIF_MAX_FRAMES} (${GIF_MAX_FRAMES / GIF_MAX_FPS} s) are made. Use the start and duration options to pick a part.`,
    );
  }
}

const edges: ConversionEdge[] = [
  ...edgesBetween(AUDIO, AUDIO, (_from, to) => ({
    family: 'audio',
    lossy: !LOSSLESS_AUDIO.has(to),
    cost: 5,
  })),
  ...edgesBetween(VIDEO, VIDEO, { family: 'video', lossy: true, cost: 10 }),
  // A video into its own container: compressed, cut or resized.
  ...VIDEO.map((f): ConversionEdge => ({ from: f, to: f, family: 'video', lossy: true, cost: 10 })),
  ...edgesBetween(VIDEO, AUDIO, { family: 'video', lossy: true, cost: 6 }),
  ...edgesBetween(VIDEO, ['gif'], { family: 'video', lossy: true, cost: 12 }),
  // An animated GIF played as a video: the video options (crf, resolution) apply.
  ...edgesBetween(['gif'], ['mp4', 'webm'], { family: 'video', lossy: true, cost: 10 }),
  ...edgesBetween(Object.keys(READ_ONLY_AUDIO), AUDIO, (_from, to) => ({
    family: 'audio',
    lossy: !LOSSLESS_AUDIO.has(to),
    cost: 5,
  })),
  ...edgesBetween(Object.keys(READ_ONLY_VIDEO), VIDEO, { family: 'video', lossy: true, cost: 10 }),
  ...edgesBetween(Object.keys(READ_ONLY_VIDEO), AUDIO, { family: 'video', lossy: true, cost: 6 }),
  ...edgesBetween(Object.keys(READ_ONLY_VIDEO), ['gif'], { family: 'video', lossy: true, cost: 12 }),
];

/** Input arguments that read `path` as `format` with the forced demuxer and local files only. */
export function ffmpegInputArgs(format: FormatId, path: string, start?: number): string[] {
  const demuxer = DEMUXER[format];
  if (!demuxer) throw new FileconvError('CONVERT_FAILED', `ffmpeg has no demuxer for ${format}.`);
  const seek = start ? ['-ss', String(start)] : [];
  return ['-protocol_whitelist', 'file', '-f', demuxer, ...seek, '-i', `file:${path}`];
}

/** What ffmpeg says when the bytes are not the declared format. */
const UNREADABLE_INPUT =
  /Invalid data found when processing input|moov atom not found|could not find codec parameters|EBML header parsing failed|detected only with low score/i;

/** Maps an ffmpeg/ffprobe failure to a detail code when the input itself is the problem. */
export function classifyFfmpegError(e: unknown): unknown {
  if (!(e instanceof EngineProcessError)) return e;
  if (UNREADABLE_INPUT.test(e.output)) {
    return new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
  }
  const missing = /Stream map '0:([av]):0' matches no streams/.exec(e.output);
  if (missing) {
    const kind = missing[1] === 'a' ? 'audio' : 'video';
    return new FileconvError('CONVERT_FAILED', `The input has no ${kind} stream.`, { cause: e });
  }
  return e;
}

function ffprobePath(): string {
  const path = findBinary(['ffprobe']);
  if (!path) throw new FileconvError('CONVERT_FAILED', 'ffprobe is not installed.');
  return path;
}

/** What ffprobe tells of the input: its duration (0 when the container does not say), its streams. */
interface InputInfo {
  seconds: number;
  hasVideo: boolean;
}

async function probeInput(format: FormatId, input: string, ctx: StepContext): Promise<InputInfo> {
  const args = ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type', '-of', 'json'];
  let stdout: string;
  try {
    ({ stdout } = await runProcess(ffprobePath(), [...args, ...ffmpegInputArgs(format, input)], ctx));
  } catch (e) {
    // ffprobe opens the input with the same forced demuxer: if it cannot, the file is not that format.
    if (e instanceof EngineProcessError)
      throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
    throw e;
  }
  const info = JSON.parse(stdout) as { format?: { duration?: string }; streams?: { codec_type?: string }[] };
  const seconds = Number.parseFloat(info.format?.duration ?? '');
  return {
    seconds: Number.isFinite(seconds) ? seconds : 0,
    hasVideo: (info.streams ?? []).some((s) => s.codec_type === 'video'),
  };
}

function audioOptionArgs(to: FormatId, o: Options): string[] {
  const args: string[] = [];
  if (o.bitrate && !LOSSLESS_AUDIO.has(to)) args.push('-b:a', `${o.bitrate}k`);
  else if (preset(o) && !LOSSLESS_AUDIO.has(to)) args.push('-b:a', VIDEO_PRESETS[preset(o)!].audio);
  if (o.sample_rate) args.push('-ar', String(o.sample_rate));
  return args;
}

/** The lossy `compress` preset asked, if any (video has no lossless one: refused at the start). */
function preset(o: Options): keyof typeof VIDEO_PRESETS | undefined {
  return o.compress === 'lossless' ? undefined : o.compress;
}

/** A scale filter for the requested size, kept to even numbers as yuv420p needs. */
function scaleFilter(o: Options): string {
  const [rw, rh] = o.resolution ? o.resolution.split('x').map(Number) : [o.width, o.height];
  const even = (n: number | undefined) => (n ? String(Math.max(2, n - (n % 2))) : '-2');
  const p = preset(o);
  // A preset's largest height, never enlarging.
  if (!rw && !rh && p) return `scale=-2:'2*trunc(min(${VIDEO_PRESETS[p].height},ih)/2)'`;
  if (!rw && !rh) return 'scale=trunc(iw/2)*2:trunc(ih/2)*2';
  return `scale=${even(rw)}:${even(rh)}`;
}

function videoArgs(to: FormatId, o: Options, hasVideo: boolean): string[] {
  const target = VIDEO_TARGET[to];
  if (!target) throw new FileconvError('CONVERT_FAILED', `ffmpeg cannot write ${to}.`);
  // A recording in a video container (an MP4 with only a sound track) stays audio-only.
  if (!hasVideo) return ['-map', '0:a:0', '-vn', ...target.audio, ...audioOptionArgs(to, o), ...target.muxer];
  const rate: string[] = [];
  const p = preset(o);
  const crf = o.crf ?? (p && VIDEO_PRESETS[p].crf);
  if (crf !== undefined && to !== 'avi') rate.push('-crf', String(crf));
  if (o.bitrate) rate.push('-b:v', `${o.bitrate}k`);
  // libvpx reads crf only as a quality cap under a bitrate ceiling.
  else if (to === 'webm') rate.push('-b:v', p ? VIDEO_PRESETS[p].vpxBitrate : '1M');
  // MPEG-4 Part 2 has a quantiser, not a crf: 2 (best) to 31.
  else if (to === 'avi' && p) rate.push('-q:v', String({ printer: 4, ebook: 8, screen: 12 }[p]));
  return [
    '-map',
    '0:v:0',
    '-map',
    '0:a:0?',
    '-vf',
    scaleFilter(o),
    ...target.video,
    ...rate,
    ...target.audio,
    ...(o.sample_rate ? ['-ar', String(o.sample_rate)] : []),
    ...target.muxer,
  ];
}

function gifArgs(o: Options): string[] {
  const [rw] = o.resolution ? o.resolution.split('x').map(Number) : [o.width];
  const width = Math.min(rw ?? GIF_MAX_WIDTH, GIF_MAX_WIDTH);
  // eof_action=pass keeps the last frame when the stream ends before the next output tick: without
  // it a video of one frame shorter than 1/GIF_MAX_FPS s comes out as a GIF of no frames.
  const filter = `fps=${GIF_MAX_FPS}:eof_action=pass,scale='min(${width},iw)':-1:flags=lanczos,split[a][b];[a]palettegen[p];[b][p]paletteuse`;
  return ['-map', '0:v:0', '-an', '-filter_complex', filter, '-f', 'gif'];
}

function outputArgs(edge: ConversionEdge, o: Options, hasVideo: boolean): string[] {
  if (edge.to === 'gif') return gifArgs(o);
  const audio = AUDIO_TARGET[edge.to];
  if (audio)
    return [
      '-map',
      '0:a:0',
      '-vn',
      '-sn',
      '-dn',
      ...audio.slice(0, 2),
      ...audioOptionArgs(edge.to, o),
      ...audio.slice(2),
    ];
  return videoArgs(edge.to, o, hasVideo);
}

/** Seconds of output expected, for turning ffmpeg's out_time into a fraction. */
function expectedSeconds(inputSeconds: number, o: Options): number {
  const remaining = Math.max(0, inputSeconds - (o.start ?? 0));
  return o.duration ? Math.min(o.duration, remaining || o.duration) : remaining;
}

const OPTIONS = {
  width,
  height,
  bitrate: defineOption(int(8, 20000), 'bitrate in kbit/s'),
  sample_rate: defineOption(
    oneOfNumbers([8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000]),
    'audio sample rate in Hz',
  ),
  resolution: defineOption(like(/^\d{2,5}x\d{2,5}$/, '1280x720'), 'video size WxH'),
  crf: defineOption(int(0, 51), 'video constant rate factor'),
  compress,
  start: defineOption(num(0, 86400), 'start offset in seconds'),
  duration: defineOption(num(0.01, 86400), 'duration in seconds'),
};
type Options = OptionValues<typeof OPTIONS>;

export default defineConverter({
  name: 'ffmpeg',
  description:
    'FFmpeg: audio and video transcoding, audio extraction, video to GIF and animated GIF to video',
  packages: ['ffmpeg'],
  edges,
  options: OPTIONS,
  concurrency: 1,
  timeoutMs: 300_000,
  // Transcodes run for minutes with two threads: they give way to short conversions on the cores.
  background: true,
  async probe() {
    const found = await probeBinary(['ffmpeg'], ['-hide_banner', '-version'], /ffmpeg version (\S+)/);
    if (!found.ok || !found.path) return found;
    // Builds differ: every declared edge needs its encoder, so a build lacking one is not usable.
    const { all: stdout } = await binaryOutput(found.path, ['-hide_banner', '-encoders']);
    const missing = REQUIRED_ENCODERS.filter(
      (name) => !new RegExp(`^\\s*[VAS][.A-Z]{5}\\s+${name}\\s`, 'm').test(stdout),
    );
    if (missing.length > 0)
      return { ok: false, path: found.path, detail: `ffmpeg lacks encoders: ${missing.join(', ')}` };
    if (!findBinary(['ffprobe']))
      return { ok: false, path: found.path, detail: 'ffprobe not found next to ffmpeg' };
    return found;
  },
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const ffmpeg = findBinary(['ffmpeg']);
    if (!ffmpeg) throw new FileconvError('CONVERT_FAILED', 'ffmpeg is not installed.');
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    refuseLossless(options.compress, 'audio or video');
    // Seconds the input announces and the output should hold; microseconds ffmpeg says it encoded.
    let announced = 0;
    let total = 0;
    let encodedUs = 0;
    try {
      const info = await probeInput(edge.from, input, ctx);
      announced = info.seconds;
      total = expectedSeconds(info.seconds, options);
      if (edge.to === 'gif') {
        // A GIF is made of pictures: a recording without a picture stream has none to give.
        if (!info.hasVideo) throw new FileconvError('CONVERT_FAILED', 'The input has no video stream.');
        checkGifLength(total);
      }
      const args = [
        '-hide_banner',
        '-nostdin',
        '-y',
        ...ffmpegInputArgs(edge.from, input, options.start),
        ...(options.duration ? ['-t', String(options.duration)] : []),
        '-threads',
        '2',
        ...outputArgs(edge, options, info.hasVideo),
        '-progress',
        'pipe:1',
        '-nostats',
        output,
      ];
      ctx.log(`ffmpeg ${edge.from} -> ${edge.to}`);
      if (!info.hasVideo && VIDEO_TARGET[edge.to])
        ctx.log(`the input has no video stream: writing an audio-only ${edge.to}`);
      await runProcess(ffmpeg, args, ctx, {
        onLine: (line, stream) => {
          if (stream !== 'stdout' || total <= 0) return;
          const m = /^out_time_(?:us|ms)=(\d+)/.exec(line);
          if (!m) return;
          encodedUs = Math.max(encodedUs, Number(m[1]));
          ctx.progress(Math.min(1, encodedUs / 1e6 / total));
        },
      });
    } catch (e) {
      throw classifyFfmpegError(e);
    }
    // ffmpeg can end with status 0 having written nothing (no frame reached the muxer).
    if (!(await stat(output).catch(() => undefined))?.size)
      throw new FileconvError(
        'CONVERT_FAILED',
        `ffmpeg wrote an empty ${edge.to}: no frame or sample reached the output.`,
      );
    // Or only a container's header: a recording whose header promises seconds of sound whose data
    // was cut off gives no sample to encode (a whole one gives at least its first frame's time).
    if (AUDIO_TARGET[edge.to] && total > 1 && encodedUs === 0)
      throw new FileconvError(
        'MALFORMED_DOCUMENT',
        `The ${edge.from} announces ${Math.round(announced)} s of sound, but none of it could be decoded: the file is cut off or damaged.`,
      );
    if (options.compress && edge.from === edge.to) {
      const changed =
        options.start || options.duration || options.resolution || options.width || options.height;
      await keepSmaller(input, output, ctx, !changed);
    }
    ctx.progress(1);
    return { files: [output] };
  },
});

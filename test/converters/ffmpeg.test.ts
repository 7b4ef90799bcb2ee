import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ffmpeg from '../../converters/ffmpeg.js';
import { runStep, stepContext, tempDir } from '../helpers/step.js';

const execFileAsync = promisify(execFile);

const AUDIO = ['mp3', 'wav', 'ogg', 'flac', 'm4a', 'aac', 'opus'];
const VIDEO = ['mp4', 'webm', 'mkv', 'mov', 'avi'];

/** What ffprobe sees in a file: container names and codec per stream kind. */
interface Probed {
  container: string;
  audio?: string;
  video?: string;
  sampleRate?: number;
  width?: number;
  height?: number;
  pixFmt?: string;
  frames?: number;
  duration: number;
}

function probe(file: string): Probed {
  const out = execFileSync(
    'ffprobe',
    [
      '-v',
      'error',
      '-show_entries',
      'format=format_name,duration:stream=codec_type,codec_name,sample_rate,width,height,pix_fmt,nb_read_frames',
      '-count_frames',
      '-of',
      'json',
      file,
    ],
    { encoding: 'utf8' },
  );
  const json = JSON.parse(out) as {
    format: { format_name: string; duration?: string };
    streams: {
      codec_type: string;
      codec_name: string;
      sample_rate?: string;
      width?: number;
      height?: number;
      pix_fmt?: string;
      nb_read_frames?: string;
    }[];
  };
  const a = json.streams.find((s) => s.codec_type === 'audio');
  const v = json.streams.find((s) => s.codec_type === 'video');
  return {
    container: json.format.format_name,
    audio: a?.codec_name,
    video: v?.codec_name,
    sampleRate: a?.sample_rate ? Number(a.sample_rate) : undefined,
    width: v?.width,
    height: v?.height,
    pixFmt: v?.pix_fmt,
    frames: v?.nb_read_frames ? Number(v.nb_read_frames) : undefined,
    duration: Number(json.format.duration ?? 0),
  };
}

/** Expected container (ffprobe's format_name contains it) and codecs per target. */
const EXPECT: Record<
  string,
  { container: string; audio?: string; video?: string; magic?: (b: Buffer) => boolean }
> = {
  mp3: { container: 'mp3', audio: 'mp3' },
  wav: { container: 'wav', audio: 'pcm_s16le', magic: (b) => b.subarray(0, 4).toString() === 'RIFF' },
  ogg: { container: 'ogg', audio: 'vorbis', magic: (b) => b.subarray(0, 4).toString() === 'OggS' },
  opus: { container: 'ogg', audio: 'opus', magic: (b) => b.subarray(0, 4).toString() === 'OggS' },
  flac: { container: 'flac', audio: 'flac', magic: (b) => b.subarray(0, 4).toString() === 'fLaC' },
  m4a: { container: 'mp4', audio: 'aac', magic: (b) => b.subarray(4, 8).toString() === 'ftyp' },
  aac: { container: 'aac', audio: 'aac', magic: (b) => b[0] === 0xff && (b[1]! & 0xf0) === 0xf0 },
  mp4: {
    container: 'mp4',
    video: 'h264',
    audio: 'aac',
    magic: (b) => b.subarray(4, 8).toString() === 'ftyp',
  },
  mov: { container: 'mov', video: 'h264', audio: 'aac' },
  mkv: { container: 'matroska', video: 'h264', audio: 'aac', magic: (b) => b.readUInt32BE(0) === 0x1a45dfa3 },
  webm: { container: 'webm', video: 'vp8', audio: 'opus', magic: (b) => b.readUInt32BE(0) === 0x1a45dfa3 },
  avi: {
    container: 'avi',
    video: 'mpeg4',
    audio: 'mp3',
    magic: (b) => b.subarray(8, 12).toString() === 'AVI ',
  },
  gif: { container: 'gif', video: 'gif', magic: (b) => b.subarray(0, 6).toString() === 'GIF89a' },
};

function expectFormat(file: string, to: string): Probed {
  const want = EXPECT[to]!;
  const got = probe(file);
  expect(got.container).toContain(want.container);
  if (want.audio) expect(got.audio).toBe(want.audio);
  if (want.video) expect(got.video).toBe(want.video);
  if (want.magic) expect(want.magic(readFileSync(file))).toBe(true);
  return got;
}

let fixtures: string;
/** One sample per format, made by ffmpeg lavfi or by the converter itself. */
const samples: Record<string, string> = {};

beforeAll(() => {
  fixtures = mkdtempSync(join(tmpdir(), 'fileconv-ffmpeg-'));
  const lavfi = (args: string[], name: string) => {
    const out = join(fixtures, name);
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args, out]);
    return out;
  };
  samples.wav = lavfi(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'], 'in.wav');
  samples.mp4 = lavfi(
    [
      ...['-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
    ],
    'in.mp4',
  );
  samples.silentMp4 = lavfi(
    [
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
    ],
    'silent.mp4',
  );
  // odd dimensions on purpose: yuv420p needs even ones
  samples.gif = lavfi(
    ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=91x67:rate=10', '-f', 'gif'],
    'animated.gif',
  );
  samples.audioOnlyMp4 = lavfi(
    ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'aac', '-f', 'mp4'],
    'audio-only.mp4',
  );
  // One frame at 25 fps: the stream ends 0.04 s in, before the GIF's second tick.
  samples.oneFrameMp4 = lavfi(
    [
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=64x48:rate=25',
      '-frames:v',
      '1',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
    ],
    'one-frame.mp4',
  );
});

afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

/** Runs a step and keeps its output as the sample of the target format. */
async function convert(from: string, to: string, options = {}): Promise<string> {
  const { files } = await runStep(ffmpeg, from, to, samples[from]!, options);
  expect(files).toHaveLength(1);
  const kept = join(fixtures, `${from}-to.${to}`);
  copyFileSync(files[0]!, kept);
  samples[to] ??= kept;
  return kept;
}

describe('ffmpeg converter', () => {
  it('declares audio, video, extraction and gif edges', () => {
    const keys = new Set(ffmpeg.edges.map((e) => `${e.from}-${e.to}`));
    for (const a of AUDIO) for (const b of AUDIO) if (a !== b) expect(keys.has(`${a}-${b}`)).toBe(true);
    for (const v of VIDEO) {
      expect(keys.has(`${v}-gif`)).toBe(true);
      for (const a of AUDIO) expect(keys.has(`${v}-${a}`)).toBe(true);
    }
    expect(ffmpeg.edges.find((e) => e.from === 'wav' && e.to === 'flac')?.lossy).toBe(false);
    expect(ffmpeg.edges.find((e) => e.from === 'mp4' && e.to === 'mp3')?.family).toBe('video');
  });

  it('probes ffmpeg', async () => {
    const p = await ffmpeg.probe();
    expect(p.ok).toBe(true);
    expect(p.version).toMatch(/\d/);
  });

  it.each(AUDIO.filter((f) => f !== 'wav'))('converts wav to %s', async (to) => {
    expectFormat(await convert('wav', to), to);
  });

  it.each(AUDIO.filter((f) => f !== 'wav'))('reads %s as a source', async (from) => {
    const target = from === 'mp3' ? 'flac' : 'wav';
    const got = expectFormat(await convert(from, target), target);
    expect(got.duration).toBeGreaterThan(0.5);
  });

  it.each(['webm', 'mkv', 'mov', 'avi', 'gif'])('converts mp4 to %s', async (to) => {
    expectFormat(await convert('mp4', to), to);
  });

  it.each([
    ['webm', 'mp4'],
    ['mkv', 'mp3'],
    ['mov', 'gif'],
    ['avi', 'opus'],
    ['mp4', 'm4a'],
  ])('reads %s as a source (to %s)', async (from, to) => {
    expectFormat(await convert(from, to), to);
  });

  it('maps sample_rate, bitrate, start and duration', async () => {
    const { files } = await runStep(ffmpeg, 'wav', 'mp3', samples.wav!, {
      sample_rate: 22050,
      bitrate: 64,
      start: 0.25,
      duration: 0.5,
    });
    const got = expectFormat(files[0]!, 'mp3');
    expect(got.sampleRate).toBe(22050);
    // The output's own length as ffprobe reads it (the 0.5 s asked for, give or take a frame),
    // not how long the conversion took.
    const audioSeconds = got.duration;
    expect(audioSeconds).toBeGreaterThan(0.3);
    expect(audioSeconds).toBeLessThan(0.7);
  });

  it('maps resolution and crf for video', async () => {
    const { files } = await runStep(ffmpeg, 'mp4', 'mkv', samples.mp4!, { resolution: '80x60', crf: 30 });
    expect(expectFormat(files[0]!, 'mkv').width).toBe(80);
  });

  it('reports progress up to 1', async () => {
    const ctx = stepContext();
    const edge = ffmpeg.edges.find((e) => e.from === 'mp4' && e.to === 'webm')!;
    await ffmpeg.run({ edge, input: samples.mp4!, outDir: tempDir(), options: {} }, ctx);
    expect(ctx.progressSeen.length).toBeGreaterThan(1);
    for (const f of ctx.progressSeen) expect(f >= 0 && f <= 1).toBe(true);
    expect(ctx.progressSeen.at(-1)).toBe(1);
  });

  it.each(['mp3', 'ogg', 'flac', 'aac', 'wav', 'mp4', 'mkv', 'avi'])(
    'garbage declared as %s is MALFORMED_DOCUMENT',
    async (from) => {
      const garbage = join(tempDir(), 'garbage.bin');
      writeFileSync(garbage, Buffer.concat([Buffer.from('not media at all\n'), Buffer.alloc(4096, 0x5a)]));
      const to = from === 'wav' ? 'flac' : 'wav';
      await expect(runStep(ffmpeg, from, to, garbage)).rejects.toMatchObject({ code: 'MALFORMED_DOCUMENT' });
    },
  );

  it('refuses an m4a whose header promises seconds of sound whose data is cut off', async () => {
    // The moov box first, then the cut right where the samples would start: the container still
    // says 5 s, as a file copied without its end does.
    const dir = tempDir();
    const whole = join(dir, 'whole.m4a');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=5',
      '-c:a',
      'aac',
      '-movflags',
      '+faststart',
      whole,
    ]);
    const bytes = readFileSync(whole);
    const mdat = bytes.indexOf('mdat') + 4;
    expect(mdat).toBeGreaterThan(bytes.indexOf('moov'));
    const cut = join(dir, 'cut.m4a');
    writeFileSync(cut, bytes.subarray(0, mdat));
    expect(probe(cut).duration).toBeGreaterThan(4);
    await expect(runStep(ffmpeg, 'm4a', 'mp3', cut)).rejects.toMatchObject({ code: 'MALFORMED_DOCUMENT' });
    // The whole file converts.
    const { files } = await runStep(ffmpeg, 'm4a', 'mp3', whole);
    expect(probe(files[0]!).duration).toBeGreaterThan(4);
  });

  it.each(['mp4', 'webm'])('plays an animated GIF as %s: every frame, even size, yuv420p', async (to) => {
    const { files } = await runStep(ffmpeg, 'gif', to, samples.gif!);
    const got = probe(files[0]!);
    expect(got.container).toContain(EXPECT[to]!.container);
    expect(got.video).toBe(EXPECT[to]!.video);
    expect(got.audio).toBeUndefined();
    expect(got.pixFmt).toBe('yuv420p');
    expect([got.width, got.height]).toEqual([90, 66]);
    expect(got.frames).toBe(10);
  });

  it('writes an MP4 holding only sound as audio-only WebM, and says so', async () => {
    const ctx = stepContext();
    const edge = ffmpeg.edges.find((e) => e.from === 'mp4' && e.to === 'webm')!;
    const { files } = await ffmpeg.run(
      { edge, input: samples.audioOnlyMp4!, outDir: tempDir(), options: {} },
      ctx,
    );
    const got = probe(files[0]!);
    expect(got.container).toContain('webm');
    expect(got.audio).toBe('opus');
    expect(got.video).toBeUndefined();
    expect(got.duration).toBeGreaterThan(0.8);
    expect(ctx.logs.join('\n')).toMatch(/no video stream: writing an audio-only webm/);
  });

  it('makes a one-frame video into a GIF of that frame, not an empty file', async () => {
    const { files } = await runStep(ffmpeg, 'mp4', 'gif', samples.oneFrameMp4!);
    const got = probe(files[0]!);
    expect(got.video).toBe('gif');
    expect([got.width, got.height]).toEqual([64, 48]);
    expect(got.frames).toBe(1);
  });

  it('refuses a GIF of a recording without pictures, naming the missing stream', async () => {
    await expect(runStep(ffmpeg, 'mp4', 'gif', samples.audioOnlyMp4!)).rejects.toMatchObject({
      code: 'CONVERT_FAILED',
      message: expect.stringMatching(/no video stream/),
    });
  });

  it('says so when a video has no audio to extract', async () => {
    await expect(runStep(ffmpeg, 'mp4', 'mp3', samples.silentMp4!)).rejects.toMatchObject({
      code: 'CONVERT_FAILED',
      message: expect.stringMatching(/no audio stream/),
    });
  });
});

describe('ffmpeg input hardening', () => {
  let server: Server;
  let hits = 0;
  let httpPlaylist: string;
  let filePlaylist: string;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('canary');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const hls = (name: string, segment: string) => {
      const file = join(fixtures, name);
      const lines = ['#EXTM3U', '#EXT-X-TARGETDURATION:10', '#EXTINF:10,', segment, '#EXT-X-ENDLIST', ''];
      writeFileSync(file, lines.join('\n'));
      return file;
    };
    httpPlaylist = hls('http-playlist.mp4', `http://127.0.0.1:${port}/segment.ts`);
    filePlaylist = hls('file-playlist.mp4', 'file:///etc/passwd');
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('the canary counts a fetch when ffmpeg is left to sniff and may use http', async () => {
    hits = 0;
    // Control: proves the playlist and canary work, so the zero below means something.
    const args = [
      '-hide_banner',
      '-nostdin',
      '-protocol_whitelist',
      'file,http,tcp',
      '-i',
      httpPlaylist,
      '-f',
      'null',
      '-',
    ];
    await execFileAsync('ffmpeg', args, { timeout: 30_000 }).catch(() => undefined);
    expect(hits).toBeGreaterThan(0);
  });

  it.each(['mp4', 'mkv', 'avi', 'mp3'])('HLS playlists given as %s read and fetch nothing', async (from) => {
    hits = 0;
    for (const playlist of [httpPlaylist, filePlaylist]) {
      const out = await runStep(ffmpeg, from, 'wav', playlist).catch((e: unknown) => e);
      expect(out).toMatchObject({ code: 'MALFORMED_DOCUMENT' });
    }
    expect(hits).toBe(0);
  });
});

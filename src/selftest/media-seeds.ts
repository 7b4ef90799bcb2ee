import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FormatId } from '../formats/index.js';
import { mapLimit } from '../run/concurrency.js';

/** Samples written at once: each is a short FFmpeg run. */
const SEED_CONCURRENCY = 2;

/**
 * FFmpeg arguments writing a short sample of each audio and video format the catalog only reads
 * (converters/_ffmpeg-formats.ts): no conversion makes them, so the self-test writes them itself.
 */
const TONE = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.3'];

/**
 * The writers, with `sound` (FFmpeg input arguments) as every sample's audio: the self-test's
 * spoken seed, so that audio and video to text have words to find, or a short tone.
 */
function writers(sound: string[]): Record<FormatId, string[]> {
  const CLIP = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25', ...sound, '-shortest'];
  return {
    aiff: [...sound, '-c:a', 'pcm_s16be', '-f', 'aiff'],
    au: [...sound, '-c:a', 'pcm_mulaw', '-f', 'au'],
    wma: [...sound, '-c:a', 'wmav2', '-f', 'asf'],
    wv: [...sound, '-c:a', 'wavpack', '-f', 'wv'],
    ac3: [...sound, '-ar', '48000', '-c:a', 'ac3', '-f', 'ac3'],
    dts: [...sound, '-ar', '48000', '-ac', '2', '-c:a', 'dca', '-strict', '-2', '-f', 'dts'],
    mka: [...sound, '-c:a', 'flac', '-f', 'matroska'],
    caf: [...sound, '-c:a', 'pcm_s16le', '-f', 'caf'],
    mp2: [...sound, '-c:a', 'mp2', '-f', 'mp2'],
    voc: [...sound, '-ar', '8000', '-c:a', 'pcm_u8', '-f', 'voc'],
    w64: [...sound, '-c:a', 'pcm_s16le', '-f', 'w64'],
    wmv: [...CLIP, '-c:v', 'wmv2', '-c:a', 'wmav2', '-f', 'asf'],
    flv: [...CLIP, '-c:v', 'flv1', '-c:a', 'mp3', '-ar', '44100', '-f', 'flv'],
    mpg: [...CLIP, '-c:v', 'mpeg1video', '-c:a', 'mp2', '-f', 'mpeg'],
    m2ts: [...CLIP, '-c:v', 'mpeg2video', '-c:a', 'mp2', '-f', 'mpegts', '-mpegts_m2ts_mode', '1'],
    '3gp': [...CLIP, '-c:v', 'mpeg4', '-c:a', 'aac', '-f', '3gp'],
    '3g2': [...CLIP, '-c:v', 'mpeg4', '-c:a', 'aac', '-f', '3g2'],
    ogv: [...CLIP, '-c:v', 'libtheora', '-c:a', 'libvorbis', '-f', 'ogg'],
    rm: [...CLIP, '-c:v', 'rv10', '-c:a', 'ac3', '-f', 'rm'],
    mxf: [...CLIP, '-c:v', 'mpeg2video', '-c:a', 'pcm_s16le', '-ar', '48000', '-f', 'mxf'],
    dv: [
      ...['-f', 'lavfi', '-i', 'testsrc=size=720x576:rate=25', ...sound, '-shortest'],
      ...[
        '-pix_fmt',
        'yuv420p',
        '-c:v',
        'dvvideo',
        '-c:a',
        'pcm_s16le',
        '-ar',
        '48000',
        '-ac',
        '2',
        '-f',
        'dv',
      ],
    ],
    y4m: [
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=64x48:rate=25:duration=0.3',
      '-pix_fmt',
      'yuv420p',
      '-f',
      'yuv4mpegpipe',
    ],
    swf: [...CLIP, '-c:v', 'flv1', '-c:a', 'mp3', '-ar', '44100', '-f', 'swf'],
  };
}

/** Subtitles no conversion writes (MicroDVD, SAMI) and SubRip, which the others are made from. */
const SUBTITLES: Record<FormatId, string> = {
  srt: '1\n00:00:01,000 --> 00:00:02,500\nfileconv self-test\n\n2\n00:00:03,000 --> 00:00:04,000\nThe quick brown fox.\n\n',
  sub: '{25}{62}fileconv self-test\n{75}{100}The quick brown fox.\n',
  smi:
    '<SAMI>\n<BODY>\n<SYNC Start=1000><P>fileconv self-test\n<SYNC Start=2500><P>&nbsp;\n' +
    '<SYNC Start=3000><P>The quick brown fox.\n<SYNC Start=4000><P>&nbsp;\n</BODY>\n</SAMI>\n',
};

/** Writes the samples with `ffmpeg` (the seeds' runner); a format whose writer fails has none. */
export async function writeMediaSeeds(
  dir: string,
  ffmpeg: (args: string[]) => Promise<void>,
  sound: string[] = TONE,
): Promise<Map<FormatId, string>> {
  const seeds = new Map<FormatId, string>();
  for (const [id, text] of Object.entries(SUBTITLES)) {
    const path = join(dir, `seed.${id}`);
    await writeFile(path, text);
    seeds.set(id, path);
  }
  await mapLimit(Object.entries(writers(sound)), SEED_CONCURRENCY, async ([id, args]) => {
    const path = join(dir, `seed.${id}`);
    try {
      await ffmpeg([...args, path]);
      seeds.set(id, path);
    } catch {
      // Left out: the self-test reports the format's conversions as having no sample.
    }
  });
  return seeds;
}

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { runConversion } from '../../src/run/runner.js';
import type { RunEvent } from '../../src/run/types.js';
import { tempDir } from '../helpers/step.js';

/** `compress` on photos (sharp) and videos (FFmpeg): sizes, metadata and dimensions checked with exiftool and ffprobe. */

const hasExiftool = spawnSync('exiftool', ['-ver']).status === 0;

/** A noisy photo, saved at high quality, with a GPS position and an author written by exiftool. */
async function photoWithGps(dir: string): Promise<string> {
  const path = join(dir, 'photo.jpg');
  await sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: '#6080a0',
      noise: { type: 'gaussian', mean: 120, sigma: 30 },
    },
  })
    .jpeg({ quality: 95 })
    .toFile(path);
  execFileSync('exiftool', [
    '-q',
    '-overwrite_original',
    '-GPSLatitude=48.8584',
    '-GPSLatitudeRef=N',
    '-GPSLongitude=2.2945',
    '-GPSLongitudeRef=E',
    '-Artist=Secret Photographer',
    path,
  ]);
  return path;
}

function exif(path: string): Record<string, unknown> {
  return (
    JSON.parse(execFileSync('exiftool', ['-json', '-a', '-G1', path], { encoding: 'utf8' })) as Record<
      string,
      unknown
    >[]
  )[0]!;
}

function convert(
  input: string,
  from: string,
  to: string,
  options: Record<string, unknown>,
  events?: RunEvent[],
) {
  return runConversion({
    input,
    from,
    to,
    outDir: join(tempDir(), 'out'),
    options,
    onEvent: (e) => events?.push(e),
  });
}

describe('compress and strip_metadata on photos (sharp)', () => {
  it.skipIf(!hasExiftool)(
    'ebook: smaller, at most 2560 px, no GPS or author left (skipped: exiftool missing)',
    async () => {
      const photo = await photoWithGps(tempDir());
      expect(JSON.stringify(exif(photo))).toContain('Secret Photographer');
      const events: RunEvent[] = [];
      const result = await convert(photo, 'jpg', 'jpg', { compress: 'ebook', strip_metadata: true }, events);
      const out = result.files[0]!.path;
      expect(statSync(out).size).toBeLessThan(statSync(photo).size / 2);
      const tags = exif(out);
      expect(Object.keys(tags).filter((k) => /GPS/.test(k))).toEqual([]);
      expect(JSON.stringify(tags)).not.toContain('Secret Photographer');
      expect(tags['File:ImageWidth']).toBe(2560);
      expect(tags['File:ImageHeight']).toBe(1920);
      expect(events.map((e) => e.message).join('\n')).toMatch(/compressed from \d+ to \d+ bytes/);
    },
  );

  it('never returns a larger photo: an already small one comes back as it was', async () => {
    const dir = tempDir();
    const small = join(dir, 'small.jpg');
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .jpeg({ quality: 20 })
      .toFile(small);
    const result = await convert(small, 'jpg', 'jpg', { compress: 'printer' });
    expect(readFileSync(result.files[0]!.path).equals(readFileSync(small))).toBe(true);
  });

  it('screen makes a PNG a palette PNG, smaller; lossless of a JPEG is refused', async () => {
    const dir = tempDir();
    const png = join(dir, 'shot.png');
    await sharp({
      create: {
        width: 1200,
        height: 900,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 20 },
      },
    })
      .png()
      .toFile(png);
    const result = await convert(png, 'png', 'png', { compress: 'screen' });
    const out = result.files[0]!.path;
    expect(statSync(out).size).toBeLessThan(statSync(png).size);
    // `file` reads the PNG header: a colour map means a palette.
    expect(execFileSync('file', ['-b', out], { encoding: 'utf8' })).toMatch(
      /colormap|1280 x 960|8-bit colormap/,
    );
    const jpg = join(dir, 'x.jpg');
    await sharp(png).jpeg().toFile(jpg);
    await expect(convert(jpg, 'jpg', 'jpg', { compress: 'lossless' })).rejects.toThrow(
      /compress lossless does not apply|cannot be made smaller without loss/,
    );
  });
});

function ffprobe(path: string): { height: number; codec: string } {
  const out = execFileSync(
    'ffprobe',
    [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=height,codec_name',
      '-of',
      'json',
      path,
    ],
    { encoding: 'utf8' },
  );
  const s = JSON.parse(out).streams[0];
  return { height: s.height, codec: s.codec_name };
}

/** An H.264 test picture made by FFmpeg's own source, encoded as asked. */
function testVideo(name: string, source: string, encoding: string[]): string {
  const video = join(tempDir(), name);
  const args = ['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${source}`, '-c:v', 'libx264'];
  execFileSync('ffmpeg', [...args, ...encoding, '-pix_fmt', 'yuv420p', video]);
  return video;
}

describe('compress on video (FFmpeg)', () => {
  it('screen: an MP4 made smaller, at most 480 lines, still H.264', async () => {
    const video = testVideo('clip.mp4', '1280x720:rate=25:duration=2', ['-preset', 'ultrafast', '-crf', '8']);
    const result = await convert(video, 'mp4', 'mp4', { compress: 'screen' });
    const out = result.files[0]!.path;
    expect(statSync(out).size).toBeLessThan(statSync(video).size / 2);
    expect(ffprobe(out)).toEqual({ height: 480, codec: 'h264' });
  });

  it('never returns a larger video: an already small one comes back as it was', async () => {
    const video = testVideo('tiny.mp4', '160x120:rate=10:duration=1', ['-crf', '50']);
    const result = await convert(video, 'mp4', 'mp4', { compress: 'printer' });
    expect(readFileSync(result.files[0]!.path).equals(readFileSync(video))).toBe(true);
  });
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { READ_ONLY_AUDIO, READ_ONLY_VIDEO } from '../../converters/_ffmpeg-formats.js';
import ffmpeg from '../../converters/ffmpeg.js';
import { detectFile } from '../../src/detect/index.js';
import { EXPECTED, fixture } from '../detect/helpers.js';
import { runStep, tempDir } from '../helpers/step.js';

const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Every detection fixture of a format ffmpeg only reads: each variant is converted. */
function fixturesOf(formats: Record<string, string>): [string, string][] {
  return Object.entries(EXPECTED)
    .filter(([name, id]) => name.startsWith('media/') && id in formats)
    .map(([name, id]) => [name, id]);
}

function seconds(file: string): number {
  const out = execFileSync('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  return Number.parseFloat(out.toString());
}

async function convertTo(from: string, to: string, input: string): Promise<string> {
  const { files } = await runStep(ffmpeg, from, to, input);
  expect(files).toHaveLength(1);
  expect((await detectFile(files[0]!)).id).toBe(to);
  return files[0]!;
}

describe.skipIf(!hasFfmpeg)('ffmpeg: audio and video formats it only reads', () => {
  const audio = fixturesOf(READ_ONLY_AUDIO);
  const video = fixturesOf(READ_ONLY_VIDEO);

  it('has a fixture for each of them', () => {
    const covered = new Set([...audio, ...video].map(([, id]) => id));
    const uncovered = [...Object.keys(READ_ONLY_AUDIO), ...Object.keys(READ_ONLY_VIDEO)].filter(
      (f) => !covered.has(f),
    );
    expect(uncovered).toEqual([]);
  });

  it.each(audio)('converts %s (%s) to MP3 and WAV', async (name, id) => {
    for (const to of ['mp3', 'wav'])
      expect(seconds(await convertTo(id, to, fixture(name)))).toBeGreaterThan(0);
  });

  it.each(video)('converts %s (%s) to MP4', async (name, id) => {
    expect(seconds(await convertTo(id, 'mp4', fixture(name)))).toBeGreaterThan(0);
  });

  it.each(['flv', 'mpg', 'wmv', 'm2ts'])('takes the sound of a %s as MP3', async (id) => {
    const muxer = { flv: 'flv', mpg: 'mpeg', wmv: 'asf', m2ts: 'mpegts' }[id]!;
    const input = join(tempDir(), `in.${id}`);
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=32x32:rate=25:duration=0.5'],
      ...['-f', 'lavfi', '-i', 'sine=duration=0.5', '-shortest', '-f', muxer, input],
    ]);
    expect(seconds(await convertTo(id, 'mp3', input))).toBeGreaterThan(0.3);
  });

  it('refuses a WMA that is not one as malformed, reading it with its own demuxer', async () => {
    await expect(runStep(ffmpeg, 'wma', 'mp3', fixture('media/audio.caf'))).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });
});

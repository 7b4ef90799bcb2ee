import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import espeak from '../../converters/espeak.js';
import { runStep, tempDir } from '../helpers/step.js';

function textFile(content: string | Buffer): string {
  const path = join(tempDir(), 'speech.txt');
  writeFileSync(path, content);
  return path;
}

/** Duration in seconds and codec of an audio file, as ffprobe reads it. */
function audioInfo(file: string): { seconds: number; codec: string } {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', file],
    { encoding: 'utf8' },
  );
  const json = JSON.parse(out) as { format: { duration: string }; streams: { codec_name: string }[] };
  return { seconds: Number(json.format.duration), codec: json.streams[0]!.codec_name };
}

describe('espeak converter', () => {
  it('declares txt to wav only, in the voice family', () => {
    expect(espeak.edges).toEqual([{ from: 'txt', to: 'wav', family: 'voice', lossy: false, cost: 5 }]);
  });

  it('probes espeak-ng', async () => {
    const p = await espeak.probe();
    expect(p.ok).toBe(true);
    expect(p.version).toMatch(/^\d/);
  });

  it('speaks text into a WAV file', async () => {
    const { files } = await runStep(espeak, 'txt', 'wav', textFile('Hello world, this is a test.'));
    const bytes = readFileSync(files[0]!);
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.subarray(8, 12).toString()).toBe('WAVE');
    const info = audioInfo(files[0]!);
    expect(info.codec).toBe('pcm_s16le');
    expect(info.seconds).toBeGreaterThan(1);
  });

  it('maps speed: slower speech is longer audio', async () => {
    const input = textFile('One two three four five six seven eight nine ten.');
    const slow = await runStep(espeak, 'txt', 'wav', input, { speed: 80 });
    const fast = await runStep(espeak, 'txt', 'wav', input, { speed: 400 });
    expect(audioInfo(slow.files[0]!).seconds).toBeGreaterThan(audioInfo(fast.files[0]!).seconds * 2);
  });

  it('takes a voice, and lang as a voice alias', async () => {
    const input = textFile('Guten Tag');
    const voiced = await runStep(espeak, 'txt', 'wav', input, { voice: 'en-us+f3' });
    const lang = await runStep(espeak, 'txt', 'wav', input, { lang: 'de' });
    expect(audioInfo(voiced.files[0]!).seconds).toBeGreaterThan(0.3);
    expect(audioInfo(lang.files[0]!).seconds).toBeGreaterThan(0.3);
  });

  it('an unknown voice is INVALID_REQUEST', async () => {
    await expect(runStep(espeak, 'txt', 'wav', textFile('hi'), { voice: 'zz' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  it('empty text is refused', async () => {
    await expect(runStep(espeak, 'txt', 'wav', textFile('  \n'))).rejects.toMatchObject({
      code: 'CONVERT_FAILED',
      message: expect.stringMatching(/empty/),
    });
  });

  it('binary bytes are MALFORMED_DOCUMENT', async () => {
    const input = textFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]));
    await expect(runStep(espeak, 'txt', 'wav', input)).rejects.toMatchObject({ code: 'MALFORMED_DOCUMENT' });
  });

  it('text over the size limit is refused before synthesis', async () => {
    await expect(runStep(espeak, 'txt', 'wav', textFile('word '.repeat(30_000)))).rejects.toMatchObject({
      code: 'CONVERT_FAILED',
      message: expect.stringMatching(/at most/),
    });
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import espeak from '../../converters/espeak.js';
import ffmpeg from '../../converters/ffmpeg.js';
import pocketsphinx from '../../converters/pocketsphinx.js';
import { loadConverters } from '../../src/engine/registry.js';
import { planConversion } from '../../src/plan/graph.js';
import { runStep, stepContext, tempDir } from '../helpers/step.js';

// Synthetic speech is recognised imperfectly; this phrase at this speed reliably yields "weather".
const PHRASE = 'the weather is nice today';
const SPEED = 130;

async function spoken(): Promise<string> {
  const txt = join(tempDir(), 'phrase.txt');
  writeFileSync(txt, PHRASE);
  const { files } = await runStep(espeak, 'txt', 'wav', txt, { speed: SPEED });
  return files[0]!;
}

describe('pocketsphinx converter', () => {
  it('declares wav to txt in the voice family', () => {
    expect(pocketsphinx.edges).toEqual([{ from: 'wav', to: 'txt', family: 'voice', lossy: true, cost: 8 }]);
  });

  it('probes the binary and its model', async () => {
    expect((await pocketsphinx.probe()).ok).toBe(true);
  });

  it('transcribes speech made by espeak-ng', async () => {
    const wav = await spoken();
    const ctx = stepContext();
    const edge = pocketsphinx.edges[0]!;
    const { files } = await pocketsphinx.run({ edge, input: wav, outDir: tempDir(), options: {} }, ctx);
    const text = readFileSync(files[0]!, 'utf8');
    expect(text.trim().length).toBeGreaterThan(0);
    expect(text).toMatch(/\bweather\b/);
    expect(ctx.progressSeen.at(-1)).toBe(1);
  });

  it('resamples 44.1 kHz stereo input to what the model needs', async () => {
    const wav = await spoken();
    const stereo = join(tempDir(), 'stereo.wav');
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      wav,
      '-ar',
      '44100',
      '-ac',
      '2',
      stereo,
    ]);
    const { files } = await runStep(pocketsphinx, 'wav', 'txt', stereo);
    expect(readFileSync(files[0]!, 'utf8')).toMatch(/\bweather\b/);
  });

  it.each(['mp3', 'mp4', 'webm'])(
    'is where %s to txt is planned to end (speech, not OCR of frames)',
    async (from) => {
      const plan = planConversion(from, 'txt', await loadConverters());
      expect(plan?.family).toBe('voice');
      expect(plan?.steps.at(-1)?.engines[0]).toBe('pocketsphinx');
    },
  );

  it('transcribes an mp3 chained through ffmpeg', async () => {
    const mp3 = await runStep(ffmpeg, 'wav', 'mp3', await spoken());
    const wav = await runStep(ffmpeg, 'mp3', 'wav', mp3.files[0]!);
    const { files } = await runStep(pocketsphinx, 'wav', 'txt', wav.files[0]!);
    // MP3 artefacts shift the recognition; at least one spoken word must come through.
    expect(readFileSync(files[0]!, 'utf8')).toMatch(/\b(weather|is|nice|today)\b/);
  });

  it('audio without speech is refused rather than written as an empty transcript', async () => {
    const tone = join(tempDir(), 'tone.wav');
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=1',
      tone,
    ]);
    await expect(runStep(pocketsphinx, 'wav', 'txt', tone)).rejects.toMatchObject({
      code: 'CONVERT_FAILED',
      message: expect.stringMatching(/No speech/),
    });
  });

  it('a file that is not WAV is MALFORMED_DOCUMENT', async () => {
    const bad = join(tempDir(), 'bad.wav');
    writeFileSync(bad, 'this is not audio at all, just some text');
    await expect(runStep(pocketsphinx, 'wav', 'txt', bad)).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });

  it('a language without a model is INVALID_REQUEST', async () => {
    const wav = await spoken();
    await expect(runStep(pocketsphinx, 'wav', 'txt', wav, { lang: 'de' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });
});

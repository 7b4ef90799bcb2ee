import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineConverter } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { lang } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { findBinary, runProcess } from '../src/run/process.js';
import { classifyFfmpegError, ffmpegInputArgs } from './ffmpeg.js';

const BINARY = 'pocketsphinx_continuous';
/** The US English acoustic model, dictionary and language model from pocketsphinx-en-us. */
const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const MODEL = {
  hmm: join(MODEL_DIR, 'en-us'),
  lm: join(MODEL_DIR, 'en-us.lm.bin'),
  dict: join(MODEL_DIR, 'cmudict-en-us.dict'),
};
/** Languages the installed model covers (the `lang` option). */
const LANGS = new Set(['en', 'en-us', 'en_us', 'eng']);

const OPTIONS = {
  lang,
};

export default defineConverter({
  name: 'pocketsphinx',
  description: 'PocketSphinx: speech to text (US English) from WAV',
  packages: ['pocketsphinx', 'pocketsphinx-en-us', 'ffmpeg'],
  edges: [{ from: 'wav', to: 'txt', family: 'voice', lossy: true, cost: 8 }],
  options: OPTIONS,
  concurrency: 1,
  timeoutMs: 300_000,
  async probe() {
    const path = findBinary([BINARY]);
    if (!path) return { ok: false, detail: `${BINARY} not found on PATH` };
    if (!existsSync(MODEL.hmm) || !existsSync(MODEL.lm)) {
      return { ok: false, path, detail: `the US English model is missing from ${MODEL_DIR}` };
    }
    if (!findBinary(['ffmpeg']))
      return { ok: false, path, detail: 'ffmpeg (used to resample the audio) not found' };
    // The 5prealpha CLI has no version flag; the model set is what matters here.
    return { ok: true, path, version: '5prealpha (en-us model)' };
  },
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const lang = options.lang?.toLowerCase();
    if (lang && !LANGS.has(lang)) {
      throw new FileconvError(
        'INVALID_REQUEST',
        `Speech recognition has only a US English model, not ${options.lang}.`,
      );
    }
    const sphinx = findBinary([BINARY]);
    const ffmpeg = findBinary(['ffmpeg']);
    if (!sphinx || !ffmpeg)
      throw new FileconvError('CONVERT_FAILED', `${BINARY} or ffmpeg is not installed.`);
    // The model is trained on 16 kHz mono 16-bit audio; anything else is recognised as noise.
    const pcm = join(ctx.workDir, 'speech-16k.wav');
    try {
      const resample = ['-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', '-f', 'wav', pcm];
      await runProcess(
        ffmpeg,
        ['-hide_banner', '-nostdin', '-y', ...ffmpegInputArgs(edge.from, input), '-vn', ...resample],
        ctx,
      );
    } catch (e) {
      throw classifyFfmpegError(e);
    }
    ctx.progress(0.2);
    const args = [
      '-infile',
      pcm,
      '-hmm',
      MODEL.hmm,
      '-lm',
      MODEL.lm,
      '-dict',
      MODEL.dict,
      '-logfn',
      '/dev/null',
    ];
    const { stdout } = await runProcess(sphinx, args, ctx);
    const transcript = stdout
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n');
    // An empty file would look like success; silence, music or tones are worth saying so.
    if (!transcript) throw new FileconvError('CONVERT_FAILED', 'No speech was recognised in the audio.');
    const output = join(outDir, 'output.txt');
    await writeFile(output, `${transcript}\n`);
    ctx.progress(1);
    return { files: [output] };
  },
});

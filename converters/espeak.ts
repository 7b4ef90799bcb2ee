import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineConverter } from '../src/engine/contract.js';
import { defineOption, int, like } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { lang } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';

/** Speech runs roughly at text length; 100 KB is already over an hour of audio. */
export const MAX_TEXT_BYTES = 100 * 1024;
const DEFAULT_VOICE = 'en';

/** Reads the text strictly: binary or non-UTF-8 bytes are not a text file. */
async function readText(input: string): Promise<string> {
  const { size } = await stat(input);
  if (size > MAX_TEXT_BYTES) {
    throw new FileconvError(
      'CONVERT_FAILED',
      `Text to speech takes at most ${MAX_TEXT_BYTES / 1024} KB of text.`,
    );
  }
  const bytes = await readFile(input);
  if (bytes.includes(0))
    throw new FileconvError('MALFORMED_DOCUMENT', 'The file is not text (it holds binary data).');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch (e) {
    throw new FileconvError('MALFORMED_DOCUMENT', 'The file is not UTF-8 text.', { cause: e });
  }
  if (text.trim() === '')
    throw new FileconvError('CONVERT_FAILED', 'The text is empty; there is nothing to say.');
  return text;
}

const OPTIONS = {
  lang,
  voice: defineOption(like(/^[a-z]{2,3}(-[a-z0-9]{2,8})*(\+[a-z0-9]{1,12})?$/, 'en-us'), 'espeak-ng voice'),
  speed: defineOption(int(80, 450), 'speech rate in words per minute'),
};

export default defineConverter({
  name: 'espeak',
  description: 'eSpeak NG: text to speech as WAV',
  packages: ['espeak-ng'],
  // Synthesis adds nothing and drops no text: not lossy. mp3/ogg come from chaining ffmpeg.
  edges: [{ from: 'txt', to: 'wav', family: 'voice', lossy: false, cost: 5 }],
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(['espeak-ng'], ['--version'], /eSpeak NG text-to-speech:\s+(\S+)/),
  async run({ input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const espeak = findBinary(['espeak-ng']);
    if (!espeak) throw new FileconvError('CONVERT_FAILED', 'espeak-ng is not installed.');
    // A clean UTF-8 copy in our own folder, so espeak never sees a BOM or the caller's path.
    const text = join(ctx.workDir, 'speech.txt');
    await writeFile(text, await readText(input));
    const output = join(outDir, 'output.wav');
    const voice = options.voice ?? options.lang ?? DEFAULT_VOICE;
    const args = [
      '-b',
      '1',
      '-v',
      voice,
      ...(options.speed ? ['-s', String(options.speed)] : []),
      '-w',
      output,
      '-f',
      text,
    ];
    try {
      await runProcess(espeak, args, ctx);
    } catch (e) {
      if (e instanceof EngineProcessError && /voice does not exist/i.test(e.output)) {
        throw new FileconvError('INVALID_REQUEST', `espeak-ng has no voice ${voice}.`, { cause: e });
      }
      throw e;
    }
    ctx.progress(1);
    return { files: [output] };
  },
});

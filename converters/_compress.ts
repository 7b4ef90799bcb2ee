import { copyFile, stat } from 'node:fs/promises';
import type { StepContext } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';

/**
 * The `compress` presets read the same way by every engine: `printer` keeps nearly everything,
 * `ebook` is the everyday choice, `screen` the smallest. For pictures and video they set the
 * encoder's quality and a largest size; `lossless` only repacks what can be repacked without loss.
 */
export type Preset = 'lossless' | 'printer' | 'ebook' | 'screen';

/** Pictures: encoder quality (1-100) and the longest side kept, per lossy preset. */
export const IMAGE_PRESETS = {
  printer: { quality: 90, longest: undefined },
  ebook: { quality: 75, longest: 2560 },
  screen: { quality: 60, longest: 1280 },
} as const;

/** Video: H.264 constant rate factor, libvpx bitrate ceiling, audio bitrate and largest height. */
export const VIDEO_PRESETS = {
  printer: { crf: 23, vpxBitrate: '4M', audio: '160k', height: 1080 },
  ebook: { crf: 28, vpxBitrate: '1500k', audio: '128k', height: 720 },
  screen: { crf: 33, vpxBitrate: '600k', audio: '64k', height: 480 },
} as const;

/** Refuses `lossless` where the format can only be made smaller by encoding it again with loss. */
export function refuseLossless(preset: Preset | undefined, what: string): void {
  if (preset === 'lossless') {
    throw new FileconvError(
      'INVALID_REQUEST',
      `option compress lossless does not apply to ${what}: it cannot be made smaller without loss (use printer, ebook or screen)`,
    );
  }
}

/**
 * A compressed file no smaller than its input is worth nothing: the input comes back instead
 * (unless something else asked of the step changed the file, when the result is kept). Either
 * way the timeline gives both sizes.
 */
export async function keepSmaller(
  input: string,
  output: string,
  ctx: StepContext,
  inputIsAnAnswer = true,
): Promise<void> {
  const [before, after] = await Promise.all([stat(input), stat(output)]);
  if (after.size < before.size) {
    ctx.log(`compressed from ${before.size} to ${after.size} bytes`);
    return;
  }
  if (!inputIsAnAnswer) {
    ctx.log(`compression made the file no smaller (${before.size} to ${after.size} bytes)`);
    return;
  }
  ctx.log(
    `compression made the file no smaller (${after.size} bytes); the input (${before.size} bytes) is returned as it was`,
  );
  await copyFile(input, output);
}

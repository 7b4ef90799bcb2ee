import { copyFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { quality } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf } from '../src/formats/index.js';
import { EngineProcessError, probeBinary, runProcess } from '../src/run/process.js';

/** heif-dec is the newer name of the same tool; Debian 12 ships heif-convert. */
const BINARY = ['heif-dec', 'heif-convert'];
const VERSION = /libheif version:?\s*(\d[\d.]*)/;

/*
 * A fallback behind ImageMagick for HEIC: libheif's own decoder, for files ImageMagick 6 does not
 * open. Dearer than ImageMagick so it only runs when ImageMagick failed. heif-convert writes PNG
 * and JPEG; for the other raster targets ImageMagick offers, its PNG is encoded by sharp, so every
 * HEIC target has the same fallback.
 */
const DIRECT = new Set(['png', 'jpg']);
const VIA_PNG = { webp: 'webp', tiff: 'tiff', gif: 'gif' } as const;
const edges: ConversionEdge[] = [
  { from: 'heic', to: 'png', family: 'image', lossy: false, cost: 8 },
  { from: 'heic', to: 'jpg', family: 'image', lossy: true, cost: 8 },
  { from: 'heic', to: 'webp', family: 'image', lossy: true, cost: 8 },
  { from: 'heic', to: 'tiff', family: 'image', lossy: false, cost: 8 },
  { from: 'heic', to: 'gif', family: 'image', lossy: true, cost: 8 },
];

const UNREADABLE = /not an HEIF|unsupported HEIF|Could not read HEIF|Invalid input/i;

const OPTIONS = {
  quality,
};

export default defineConverter({
  name: 'libheif',
  description:
    "libheif's decoder (heif-convert): HEIC to PNG and JPEG (and WebP, TIFF, GIF through its PNG), the fallback for HEIC files ImageMagick cannot read",
  packages: ['libheif-examples'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 60_000,
  probe: () => probeBinary(BINARY, ['--help'], VERSION),
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const probe = await probeBinary(BINARY, ['--help'], VERSION);
    if (!probe.ok || !probe.path)
      throw new FileconvError('CONVERT_FAILED', probe.detail ?? 'heif-convert not found');
    // heif-convert picks its reader by content and its writer by the output's suffix.
    const source = join(ctx.workDir, 'input.heic');
    await copyFile(input, source);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    const decoded = DIRECT.has(edge.to) ? output : join(ctx.workDir, 'decoded.png');
    const quality = edge.to === 'jpg' && options.quality ? ['-q', String(options.quality)] : [];
    ctx.log(`heif-convert heic -> ${edge.to}`);
    try {
      await runProcess(probe.path, ['--quiet', ...quality, source, decoded], ctx);
    } catch (e) {
      await rm(decoded, { force: true });
      if (e instanceof EngineProcessError && UNREADABLE.test(e.output))
        throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
      throw e;
    }
    const size = await stat(decoded).then(
      (s) => s.size,
      () => 0,
    );
    if (size === 0) throw new FileconvError('MALFORMED_DOCUMENT', 'heif-convert wrote no image.');
    const target = VIA_PNG[edge.to as keyof typeof VIA_PNG];
    if (target) {
      ctx.log(`sharp png -> ${edge.to}`);
      // sharp's TIFF default is JPEG compression, which drops alpha: LZW keeps every pixel.
      const settings = target === 'tiff' ? { compression: 'lzw' as const } : { quality: options.quality };
      await sharp(decoded).toFormat(target, settings).toFile(output);
    }
    ctx.progress(1);
    return { files: [output] };
  },
});

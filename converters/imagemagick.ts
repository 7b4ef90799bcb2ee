import { copyFile, rm, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ConversionEdge,
  defineConverter,
  type EngineProbe,
  edgesBetween,
} from '../src/engine/contract.js';
import type { OptionValues } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { convertersDir } from '../src/engine/package-files.js';
import { dpi, fit, height, landscape, margin, paper, quality, width } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId, GRAPHICS_TOOL_IMAGES } from '../src/formats/index.js';
import { binaryOutput, EngineProcessError, findBinary, runProcess } from '../src/run/process.js';
import { pdfImageFromFile, writeImagesPdf } from './_image-pdf.js';
import { IMAGE_PAGE_OPTIONS } from './_page-layout.js';

/** The ImageMagick coder for each format; inputs and outputs always name theirs explicitly. */
const CODERS: Record<string, string> = {
  png: 'PNG',
  jpg: 'JPEG',
  gif: 'GIF',
  tiff: 'TIFF',
  webp: 'WEBP',
  bmp: 'BMP',
  ico: 'ICO',
  psd: 'PSD',
  heic: 'HEIC',
  avif: 'AVIF',
  tga: 'TGA',
  pcx: 'PCX',
  pnm: 'PNM',
  dds: 'DDS',
  hdr: 'HDR',
  xbm: 'XBM',
  xpm: 'XPM',
  sgi: 'SGI',
  fits: 'FITS',
  jp2: 'JP2',
};
/** Formats sharp handles; ImageMagick is only the fallback between these. */
const COMMON: FormatId[] = ['png', 'jpg', 'gif', 'tiff', 'webp'];
/**
 * Formats ImageMagick only reads: PSD (only ImageMagick handles it), and AVIF as the fallback
 * behind sharp, whose libvips cannot open AVIF image sequences (libheif here shows their first
 * frame).
 */
const READ_ONLY: FormatId[] = ['psd', 'avif'];
const OWN: FormatId[] = ['bmp', 'ico', 'heic'];
/**
 * Formats beyond the web's: each converts to PNG and JPEG, and PNG converts to each (which is also
 * how the self-test gets a sample of them).
 */
export const EXCHANGE: FormatId[] = GRAPHICS_TOOL_IMAGES;
// DDS is written with DXT5 block compression, XBM in black and white, XPM with a palette.
const LOSSY_TARGETS = new Set<FormatId>(['jpg', 'gif', 'webp', 'heic', 'ico', 'dds', 'xbm', 'xpm', 'jp2']);
/** Windows icons hold at most 256 x 256 pixels. */
const ICO_MAX = 256;

function edgeProps(from: FormatId, to: FormatId): Omit<ConversionEdge, 'from' | 'to'> {
  const fallback = (COMMON.includes(from) || from === 'avif') && COMMON.includes(to);
  return {
    family: 'image',
    // PSD layers are flattened into one image.
    lossy: LOSSY_TARGETS.has(to) || from === 'psd',
    cost: fallback ? 6 : 5,
    options: ['quality', 'width', 'height', 'fit'],
  };
}

const edges = [
  ...edgesBetween([...COMMON, ...OWN, ...READ_ONLY], [...COMMON, ...OWN], edgeProps),
  ...edgesBetween(EXCHANGE, ['png', 'jpg'], edgeProps),
  ...edgesBetween(['png'], EXCHANGE, edgeProps),
  // The fallback behind sharp for an AVIF libvips cannot open (an image sequence): ImageMagick
  // decodes the first frame, which is put on a PDF page as sharp's PDFs are.
  {
    from: 'avif',
    to: 'pdf',
    family: 'image',
    lossy: false,
    cost: 6,
    options: IMAGE_PAGE_OPTIONS,
  } satisfies ConversionEdge,
];

/** The folder holding fileconv's policy.xml (shipped with the package). */
export function policyDir(): string {
  return convertersDir('imagemagick');
}

/** Environment for every ImageMagick run: the project's restrictive policy. */
export function imagemagickEnv(): Record<string, string> {
  return { MAGICK_CONFIGURE_PATH: policyDir() };
}

/**
 * Finds ImageMagick: `magick` (7), then Debian's `convert-im6.q16`, then /usr/bin/convert. Any
 * `convert` on PATH may be another program (Windows' disk tool, a wrapper), so each candidate's
 * -version must say ImageMagick. binaryOutput keeps each binary's answer; a binary installed later
 * (`doctor --install`) is found on the next call.
 */
export async function findImageMagick(): Promise<EngineProbe> {
  for (const name of ['magick', 'convert-im6.q16', '/usr/bin/convert']) {
    const path = findBinary([name]);
    if (!path) continue;
    const m = /Version: ImageMagick (\S+)/.exec((await binaryOutput(path, ['-version'])).all);
    if (m) return { ok: true, path, version: m[1] };
  }
  return { ok: false, detail: 'no ImageMagick binary (magick, convert-im6.q16 or /usr/bin/convert) found' };
}

/** -resize geometry (and -extent for cover/contain) for the width/height/fit options. */
function resizeArgs(options: Options, to: FormatId): string[] {
  const { width, height, fit = 'inside' } = options;
  if (!width && !height) return [];
  const box = `${width ?? ''}x${height ?? ''}`;
  const background = to === 'jpg' || to === 'bmp' ? 'white' : 'none';
  // Its own size, centred: cut or padded to the box, as CSS's object-fit: none.
  if (fit === 'none') return ['-background', background, '-gravity', 'center', '-extent', box];
  if (!width || !height || fit === 'inside') return ['-resize', box];
  if (fit === 'fill') return ['-resize', `${box}!`];
  if (fit === 'outside') return ['-resize', `${box}^`];
  const resize = fit === 'cover' ? `${box}^` : box;
  return ['-resize', resize, '-background', background, '-gravity', 'center', '-extent', box];
}

function outputArgs(options: Options, to: FormatId): string[] {
  const args: string[] = [];
  if (to === 'jpg') args.push('-background', 'white', '-alpha', 'remove', '-alpha', 'off');
  if (to === 'ico') args.push('-resize', `${ICO_MAX}x${ICO_MAX}>`);
  if (options.quality && (to === 'jpg' || to === 'webp' || to === 'heic'))
    args.push('-quality', String(options.quality));
  return args;
}

const MALFORMED =
  /improper image header|corrupt image|insufficient image data|unexpected end-of-file|premature end|not a .* file|negative or zero image size|unable to read|no decode delegate|CorruptImage|unsupported .* format/i;
const TOO_LARGE = /exceeds limit|resources exhausted|ResourceLimit|too large/i;

function classify(e: EngineProcessError, from: FormatId): FileconvError {
  const out = e.output;
  if (/not allowed by the security policy/i.test(out)) {
    return new FileconvError('CONVERT_FAILED', `ImageMagick's security policy refused the ${from} input.`, {
      cause: e,
    });
  }
  if (TOO_LARGE.test(out)) {
    return new FileconvError('INPUT_TOO_LARGE', 'The image is over the size limits ImageMagick runs with.', {
      cause: e,
    });
  }
  if (MALFORMED.test(out)) {
    return new FileconvError('MALFORMED_DOCUMENT', `ImageMagick could not read the ${from} file.`, {
      cause: e,
    });
  }
  // What ImageMagick printed stays in the cause: its text is for us, not for the client.
  return new FileconvError('CONVERT_FAILED', `ImageMagick could not convert the ${from} file.`, { cause: e });
}

const OPTIONS = {
  quality,
  width,
  height,
  fit,
  dpi,
  paper,
  landscape,
  margin,
};
type Options = OptionValues<typeof OPTIONS>;

export default defineConverter({
  name: 'imagemagick',
  description:
    'ImageMagick under a strict policy: BMP, ICO, PSD, HEIC, TGA, PCX, Netpbm, DDS, HDR, XBM, XPM, SGI, FITS and JPEG 2000, and a fallback for common images',
  packages: ['imagemagick'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 60_000,
  probe: findImageMagick,
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const probe = await findImageMagick();
    if (!probe.ok || !probe.path)
      throw new FileconvError('CONVERT_FAILED', probe.detail ?? 'ImageMagick not found');
    const inCoder = CODERS[edge.from];
    const outCoder = edge.to === 'pdf' ? CODERS.png : CODERS[edge.to];
    if (!inCoder || !outCoder)
      throw new FileconvError('CONVERT_FAILED', `no ImageMagick coder for ${edge.from}-${edge.to}`);
    // Relative names in the step's own folder: ImageMagick reads characters like % and [ in file
    // names as format and frame syntax, and the caller's paths are not ours to vet.
    const inName = `input.${extensionOf(edge.from)}`;
    const outName = edge.to === 'pdf' ? 'page.png' : `output.${extensionOf(edge.to)}`;
    const link = join(ctx.workDir, inName);
    await rm(link, { force: true });
    await symlink(input, link);
    const args = [
      // The first frame: the merged image of a PSD, the first icon, page or animation frame.
      `${inCoder}:${inName}[0]`,
      '-auto-orient',
      ...(edge.to === 'pdf' ? [] : resizeArgs(options, edge.to)),
      ...outputArgs(options, edge.to),
      `${outCoder}:${outName}`,
    ];
    try {
      await runProcess(probe.path, args, ctx, { env: imagemagickEnv(), readable: [policyDir()] });
    } catch (e) {
      throw e instanceof EngineProcessError ? classify(e, edge.from) : e;
    }
    const produced = join(ctx.workDir, outName);
    const size = await stat(produced).then(
      (s) => s.size,
      () => 0,
    );
    if (size === 0)
      throw new FileconvError('MALFORMED_DOCUMENT', `ImageMagick wrote no image from the ${edge.from} file.`);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    if (edge.to === 'pdf')
      await writeImagesPdf([await pdfImageFromFile(produced, {}, options.dpi)], output, options);
    else await copyFile(produced, output);
    await rm(produced, { force: true });
    ctx.progress(1);
    return { files: [output] };
  },
});

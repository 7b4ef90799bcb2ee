import { open, readFile, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import sharp, { type FormatEnum, type Metadata, type Sharp, type SharpOptions } from 'sharp';
import {
  type ConversionEdge,
  defineConverter,
  edgesBetween,
  type StepContext,
} from '../src/engine/contract.js';
import type { OptionValues } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import {
  compress,
  dpi,
  fit,
  height,
  landscape,
  margin,
  paper,
  quality,
  strip_metadata,
  width,
} from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { OUTLINE_EMOJI, useFontconfigInProcess } from '../src/fonts/fontconfig.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { cgbiToPng, isCgbiPng } from './_cgbi.js';
import { IMAGE_PRESETS, keepSmaller, refuseLossless } from './_compress.js';
import { pdfImageFromFile, writeImagesPdf } from './_image-pdf.js';
import { IMAGE_PAGE_OPTIONS } from './_page-layout.js';

/** sharp's name for each format, and the file suffix its loader must claim. */
const SHARP_FORMATS: Record<string, { name: keyof FormatEnum; suffix: string }> = {
  png: { name: 'png', suffix: '.png' },
  jpg: { name: 'jpeg', suffix: '.jpg' },
  webp: { name: 'webp', suffix: '.webp' },
  avif: { name: 'heif', suffix: '.avif' },
  tiff: { name: 'tiff', suffix: '.tiff' },
  gif: { name: 'gif', suffix: '.gif' },
  svg: { name: 'svg', suffix: '.svg' },
};

/**
 * Whether this libvips build reads (and, for `write`, writes) a format. The prebuilt one reads HEIF
 * only as AVIF (no HEVC decoder), which is why HEIC is not in the lists at all.
 */
function supported(id: FormatId, write: boolean): boolean {
  const f = SHARP_FORMATS[id];
  if (!f) return false;
  const info = sharp.format[f.name];
  if (!info?.input.file || !(info.input.fileSuffix ?? []).includes(f.suffix)) return false;
  return !write || info.output.file;
}

/** Raster formats this libvips build reads and writes. */
const RASTER: FormatId[] = ['png', 'jpg', 'webp', 'avif', 'tiff', 'gif'].filter((id) => supported(id, true));
const SVG: FormatId[] = supported('svg', false) ? ['svg'] : [];
/** Targets that throw information away: lossy codecs and palette GIF. */
const LOSSY_TARGETS = new Set<FormatId>(['jpg', 'webp', 'avif', 'gif']);
/** Decoding refuses images over this many pixels, checked from the header before decoding. */
export const MAX_INPUT_PIXELS = 50_000_000;
/** SVG sources are read into memory (so they cannot reach files next to them); cap their size. */
const MAX_SVG_BYTES = 20 * 1024 * 1024;
/** Pages of a multi-page TIFF put into one PDF. */
const MAX_PDF_PAGES = 500;

// No cache (a server converts each file once), and libvips threads per image kept to half the cores
// since the registry already runs conversions side by side.
sharp.cache(false);
sharp.concurrency(Math.max(1, Math.floor(availableParallelism() / 2)));

const edges: ConversionEdge[] = [
  ...edgesBetween(RASTER, RASTER, (_from, to) => ({
    family: 'image',
    lossy: LOSSY_TARGETS.has(to),
    cost: 2,
  })),
  // A picture into its own format: compressed, resized, its metadata gone (never an animation).
  ...RASTER.filter((f) => f !== 'gif').map(
    (f): ConversionEdge => ({ from: f, to: f, family: 'image', lossy: true, cost: 2 }),
  ),
  // Pictures go into the PDF as they are: no option of the picture's encoder applies, only where
  // the page goes (its resolution, or a paper it is fitted to).
  ...edgesBetween(RASTER, ['pdf'], {
    family: 'image',
    lossy: false,
    cost: 3,
    options: IMAGE_PAGE_OPTIONS,
  }),
  // rsvg-convert is the SVG engine; libvips renders with librsvg too and is the fallback.
  ...edgesBetween(SVG, RASTER, (_from, to) => ({
    family: 'image',
    lossy: true,
    cost: LOSSY_TARGETS.has(to) ? 5 : 4,
  })),
];

const ANIMATED: ReadonlySet<FormatId> = new Set(['gif', 'webp']);

function isMalformed(message: string): boolean {
  return /unsupported image format|corrupt|premature|truncat|not a|invalid|bad |load|read error|header|XML parse/i.test(
    message,
  );
}

async function readHeader(
  input: string | Buffer,
  from: FormatId,
  inputOptions: SharpOptions,
): Promise<Metadata> {
  try {
    // Only the header is read here, so the pixel limit is off for this call and checked below.
    return await sharp(input, { ...inputOptions, limitInputPixels: false }).metadata();
  } catch (e) {
    throw new FileconvError(
      'MALFORMED_DOCUMENT',
      `sharp could not read the ${from} file: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
}

/**
 * libvips picks its loader from the content; the step is pinned to the declared format, so a
 * file decoded by any other loader is refused before its pixels are read.
 */
function checkLoader(meta: Metadata, from: FormatId): void {
  const expected = SHARP_FORMATS[from]?.name;
  if (expected && meta.format !== expected) {
    throw new FileconvError(
      'FORMAT_MISMATCH',
      `The file declared as ${from} decodes as ${meta.format ?? 'an unknown format'}; it was not converted.`,
    );
  }
}

function checkPixelLimit(meta: Metadata): void {
  const w = meta.width ?? 0;
  const h = meta.pageHeight ?? meta.height ?? 0;
  if (w * h > MAX_INPUT_PIXELS) {
    throw new FileconvError(
      'INPUT_TOO_LARGE',
      `The image is ${w} x ${h} pixels (${Math.round((w * h) / 1e6)} megapixels), over the limit of ${MAX_INPUT_PIXELS / 1e6} megapixels.`,
    );
  }
}

function encode(image: Sharp, to: FormatId, options: Options): Sharp {
  const preset = options.compress === 'lossless' ? undefined : options.compress;
  const quality = options.quality ?? (preset && IMAGE_PRESETS[preset].quality);
  if (options.compress === 'lossless' && (to === 'jpg' || to === 'avif')) refuseLossless('lossless', to);
  switch (to) {
    case 'jpg':
      // JPEG has no alpha: put transparent areas on white rather than black. mozjpeg's tables
      // when compressing: smaller at the same quality.
      return image
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: quality ?? 85, ...(options.compress ? { mozjpeg: true } : {}) });
    case 'png':
      // A lossy preset reduces the colours to a palette (as pngquant does); lossless packs harder.
      if (options.compress)
        return image.png({ compressionLevel: 9, ...(preset ? { palette: true, quality } : {}) });
      return image.png();
    case 'webp':
      return options.compress === 'lossless'
        ? image.webp({ lossless: true, effort: 6 })
        : image.webp({ quality: quality ?? 80 });
    case 'avif':
      return image.avif({ quality: quality ?? 50 });
    case 'tiff':
      return preset
        ? image.tiff({ compression: 'jpeg', quality })
        : image.tiff({ compression: 'deflate', predictor: 'horizontal' });
    case 'gif':
      return image.gif();
    default:
      throw new FileconvError('CONVERT_FAILED', `sharp cannot write ${to}`);
  }
}

/**
 * `fit: none` as CSS's object-fit has it: the picture at its own size in a width x height box,
 * centred, cut where it is larger and padded (transparent, white for JPEG) where it is smaller.
 */
function noResize(image: Sharp, meta: Metadata, options: Options, to: FormatId): Sharp {
  const turned = (meta.orientation ?? 1) >= 5;
  const w = (turned ? meta.height : meta.width) ?? 1;
  const h = (turned ? meta.width : (meta.pageHeight ?? meta.height)) ?? 1;
  const boxW = options.width ?? w;
  const boxH = options.height ?? h;
  const cutW = Math.min(w, boxW);
  const cutH = Math.min(h, boxH);
  const left = Math.floor((boxW - cutW) / 2);
  const top = Math.floor((boxH - cutH) / 2);
  const background = to === 'jpg' ? '#ffffff' : { r: 0, g: 0, b: 0, alpha: 0 };
  return image
    .extract({ left: Math.floor((w - cutW) / 2), top: Math.floor((h - cutH) / 2), width: cutW, height: cutH })
    .extend({ left, top, right: boxW - cutW - left, bottom: boxH - cutH - top, background });
}

function resize(image: Sharp, options: Options): Sharp {
  const longest =
    options.compress && options.compress !== 'lossless' && IMAGE_PRESETS[options.compress].longest;
  if (!options.width && !options.height && longest)
    return image.resize({ width: longest, height: longest, fit: 'inside', withoutEnlargement: true });
  if (!options.width && !options.height) return image;
  const fit = options.fit === undefined || options.fit === 'none' ? 'inside' : options.fit;
  return image.resize({ width: options.width, height: options.height, fit });
}

/** An Apple CgBI PNG made an ordinary one in the work folder (converters/_cgbi.ts); other inputs as they are. */
async function normalPng(from: FormatId, input: string, ctx: StepContext): Promise<string> {
  if (from !== 'png') return input;
  const head = Buffer.alloc(16);
  const handle = await open(input, 'r');
  try {
    await handle.read(head, 0, 16, 0);
  } finally {
    await handle.close();
  }
  if (!isCgbiPng(head)) return input;
  ctx.log('an Apple CgBI PNG: its pixels are read into an ordinary PNG first');
  const normal = join(ctx.workDir, 'normal.png');
  await writeFile(normal, await cgbiToPng(await readFile(input)));
  return normal;
}

async function toPdf(
  input: string,
  meta: Metadata,
  output: string,
  options: Options,
  ctx: StepContext,
): Promise<void> {
  // Every page of a TIFF becomes a PDF page; other formats give their first frame.
  const frames = meta.format === 'tiff' ? Math.min(meta.pages ?? 1, MAX_PDF_PAGES) : 1;
  const images = [];
  for (let page = 0; page < frames; page++) {
    images.push(await pdfImageFromFile(input, { page, limitInputPixels: MAX_INPUT_PIXELS }, options.dpi));
    ctx.progress((page + 1) / (frames + 1));
  }
  await writeImagesPdf(images, output, options);
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
  compress,
  // Honoured always: libvips writes no EXIF, GPS or XMP unless asked to keep them.
  strip_metadata,
};
type Options = OptionValues<typeof OPTIONS>;

export default defineConverter({
  name: 'sharp',
  description: 'libvips through sharp, in-process: fast raster image conversion and resizing',
  packages: [],
  edges,
  options: OPTIONS,
  concurrency: 2,
  async probe() {
    return {
      ok: true,
      version: `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips})`,
      path: 'sharp',
    };
  },
  async run({ edge, input: original, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    const input = await normalPng(edge.from, original, ctx);
    let source: string | Buffer = input;
    // An animation into a format that animates keeps every frame (sharp reads the first by default).
    const animated = ANIMATED.has(edge.from) && ANIMATED.has(edge.to);
    const inputOptions: SharpOptions = { limitInputPixels: MAX_INPUT_PIXELS, animated };
    if (edge.from === 'svg') {
      // librsvg inside libvips draws colour emoji as broken masks (cairo 1.16): outline emoji.
      useFontconfigInProcess(OUTLINE_EMOJI);
      if ((await stat(input)).size > MAX_SVG_BYTES) {
        throw new FileconvError(
          'CONVERT_FAILED',
          `SVG files over ${MAX_SVG_BYTES / 1024 / 1024} MB are not rendered.`,
        );
      }
      // From memory librsvg has no base folder, so the SVG cannot pull in files beside it.
      source = await readFile(input);
      // SVG user units are 1/96 inch; libvips' density counts 72 per inch.
      inputOptions.density = ((options.dpi ?? 96) * 72) / 96;
    }
    const meta = await readHeader(
      source,
      edge.from,
      edge.from === 'svg' ? { density: inputOptions.density } : {},
    );
    checkLoader(meta, edge.from);
    checkPixelLimit(meta);
    if (ctx.signal.aborted) throw new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
    try {
      if (edge.to === 'pdf') {
        await toPdf(input, meta, output, options, ctx);
      } else {
        const image = sharp(source, inputOptions)
          .rotate()
          .timeout({ seconds: Math.max(1, Math.ceil(ctx.timeoutMs / 1000)) });
        const sized =
          options.fit === 'none' && (options.width || options.height)
            ? noResize(image, meta, options, edge.to)
            : resize(image, options);
        await encode(sized, edge.to, options).toFile(output);
        if (options.compress && edge.from === edge.to) {
          // The input still carries its metadata: it is no answer when that was to go.
          await keepSmaller(input, output, ctx, !options.strip_metadata && !options.width && !options.height);
        }
      }
    } catch (e) {
      if (e instanceof FileconvError) throw e;
      const message = (e as Error).message;
      if (isMalformed(message)) {
        throw new FileconvError(
          'MALFORMED_DOCUMENT',
          `sharp could not decode the ${edge.from} file: ${message}`,
          {
            cause: e,
          },
        );
      }
      throw e;
    }
    ctx.progress(1);
    return { files: [output] };
  },
});

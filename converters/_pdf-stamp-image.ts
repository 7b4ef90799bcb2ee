import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { z } from 'zod';
import type { StepContext } from '../src/engine/contract.js';
import { defineOption, num, OPERATION_ORDER, type OptionValues, oneOf } from '../src/engine/option-kit.js';
import { FileconvError } from '../src/errors/index.js';
import { decodeSvg, svgStampProblem } from './_svg-references.js';

/**
 * A picture stamped on every page: a logo, a signature, a seal. It travels as the option
 * `stamp_image`, a `data:` URL (the HTTP API's `stamp` part, the CLI's `--stamp-image` and the
 * library make it from a file), so it is checked with the request's other options, before
 * anything is filed, and like an input: its bytes must be the PNG, JPEG or SVG its type says, its
 * pixels are bounded (read from its header), and an SVG may reference nothing outside itself. It is drawn once per page size and laid over the
 * pages as one shared image, so a thousand pages hold it once (_pdf-stamp.ts).
 */

/** Bytes of a stamp picture: a logo or a signature, not a photo album. */
export const MAX_STAMP_BYTES = 1024 * 1024;
/** Pixels of a raster stamp, checked from its header before anything decodes it. */
export const MAX_STAMP_PIXELS = 25_000_000;

const TYPES = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/svg+xml': 'svg' } as const;
type StampType = (typeof TYPES)[keyof typeof TYPES];

const DATA_URL = /^data:(image\/png|image\/jpeg|image\/svg\+xml);base64,([A-Za-z0-9+/]+={0,2})$/;
// Base64 of MAX_STAMP_BYTES, and the header.
const MAX_URL_LENGTH = Math.ceil(MAX_STAMP_BYTES / 3) * 4 + 40;

const STAMP_URL = z
  .string({ error: 'must be a string' })
  .max(MAX_URL_LENGTH, { error: `must be a picture of at most ${MAX_STAMP_BYTES} bytes` })
  .regex(DATA_URL, { error: 'must look like data:image/png;base64,... (a PNG, JPEG or SVG picture)' })
  .superRefine((url, check) => {
    const problem = pictureProblem(url);
    if (problem) check.addIssue({ code: 'custom', message: problem });
  })
  .meta({ examples: ['data:image/png;base64,iVBORw0KGgo...'] });

/** Where along the page's edges something is drawn (page numbers, a picture), 28 pt in. */
export const EDGE_POSITIONS = [
  'top-left',
  'top-center',
  'top-right',
  'bottom-left',
  'bottom-center',
  'bottom-right',
] as const;
const POSITIONS = ['center', ...EDGE_POSITIONS] as const;

/** What is drawn over the pages comes first among the operations. */
export const DRAWN = { order: OPERATION_ORDER.overlay };

export const STAMP_IMAGE_OPTIONS = {
  stamp_image: defineOption(
    STAMP_URL,
    'a PNG, JPEG or SVG picture drawn on every page, as a data: URL (HTTP: the part "stamp"; CLI: --stamp-image FILE)',
    DRAWN,
  ),
  stamp_image_position: defineOption(
    oneOf(POSITIONS),
    'with stamp_image: where on the page (default bottom-right)',
    DRAWN,
  ),
  stamp_image_width: defineOption(
    num(0.02, 1),
    'with stamp_image: its width as a share of the page width, 0.02 to 1 (default 0.25)',
    DRAWN,
  ),
  stamp_image_opacity: defineOption(num(0.05, 1), 'with stamp_image: 0.05 (faint) to 1 (default 1)', DRAWN),
};
export type StampImageValues = OptionValues<typeof STAMP_IMAGE_OPTIONS>;

/** A stamp picture as checked: what it is, its bytes and its size in pixels (SVG: user units). */
export interface StampPicture {
  type: StampType;
  mime: keyof typeof TYPES;
  bytes: Buffer;
  width: number;
  height: number;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What the bytes are, by their signature (an SVG by its first element, after any XML prologue). */
function sniff(bytes: Buffer): StampType | undefined {
  if (bytes.subarray(0, 8).equals(PNG_MAGIC)) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg';
  const decoded = decodeSvg(bytes.subarray(0, 4096));
  const head = 'text' in decoded ? decoded.text : bytes.subarray(0, 4096).toString('utf8');
  // A DOCTYPE may hold an internal subset in brackets (refused later, with its reason).
  const prologue =
    /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i;
  if (prologue.test(head)) return 'svg';
  return undefined;
}

/** A PNG's or a JPEG's size in pixels from its header, without decoding it. */
function rasterSize(type: 'png' | 'jpg', bytes: Buffer): [number, number] | undefined {
  if (type === 'png')
    return bytes.length >= 24 ? [bytes.readUInt32BE(16), bytes.readUInt32BE(20)] : undefined;
  // JPEG: the first start-of-frame marker (C0 to CF, but C4, C8 and CC are other tables).
  let i = 2;
  while (i + 9 < bytes.length && bytes[i] === 0xff) {
    const marker = bytes[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return [bytes.readUInt16BE(i + 7), bytes.readUInt16BE(i + 5)];
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  return undefined;
}

/**
 * What is wrong with a stamp picture, checked when the request's options are read (so a bad one
 * is a 400 before anything is filed): bytes that are not the type sent, a raster over the pixel
 * limit, an SVG that reaches outside itself.
 */
function pictureProblem(url: string): string | undefined {
  const m = DATA_URL.exec(url);
  if (!m) return undefined;
  const declared = TYPES[m[1] as keyof typeof TYPES];
  const bytes = Buffer.from(m[2]!, 'base64');
  const type = sniff(bytes);
  if (type !== declared)
    return `was sent as ${declared.toUpperCase()} but its bytes are ${type ? type.toUpperCase() : 'no PNG, JPEG or SVG picture'}`;
  if (type === 'svg') return svgStampProblem(bytes);
  const size = rasterSize(type, bytes);
  if (!size || size[0] < 1 || size[1] < 1) return `is a damaged ${type.toUpperCase()}`;
  if (size[0] * size[1] > MAX_STAMP_PIXELS)
    return `is ${size[0]} x ${size[1]} pixels, over the limit of ${MAX_STAMP_PIXELS / 1e6} megapixels`;
  return undefined;
}

/** Decodes and checks the stamp picture; throws with the spec's codes before any engine sees it. */
export async function readStampPicture(dataUrl: string): Promise<StampPicture> {
  // Checked when the request was read; checked again here, since a step may be given options directly.
  const m = DATA_URL.exec(dataUrl);
  const problem = m ? pictureProblem(dataUrl) : 'must be a data: URL of a PNG, JPEG or SVG picture';
  if (!m || problem) throw new FileconvError('INVALID_REQUEST', `option stamp_image ${problem}`);
  const mime = m[1] as keyof typeof TYPES;
  const type = TYPES[mime];
  const bytes = Buffer.from(m[2]!, 'base64');
  // The header gives the size; nothing is decoded (an SVG is parsed by librsvg, not drawn).
  const meta = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  const width = meta?.width ?? 0;
  const height = meta?.height ?? 0;
  if (width < 1 || height < 1)
    throw new FileconvError('INVALID_REQUEST', `option stamp_image is a damaged ${type.toUpperCase()}`);
  return { type, mime, bytes, width, height };
}

const MARGIN = 28;

/** The picture's place on a page of this size, in points. */
function placement(o: StampImageValues, picture: StampPicture, page: { width: number; height: number }) {
  const w = page.width * (o.stamp_image_width ?? 0.25);
  const h = (w * picture.height) / picture.width;
  const [v, hz = 'center'] = (o.stamp_image_position ?? 'bottom-right').split('-');
  const x = hz === 'left' ? MARGIN : hz === 'right' ? page.width - MARGIN - w : (page.width - w) / 2;
  const y = v === 'top' ? MARGIN : v === 'bottom' ? page.height - MARGIN - h : (page.height - h) / 2;
  return { x, y, w, h };
}

/** One page of the picture overlay as SVG: the picture, embedded, where it goes on such a page. */
export function stampPictureSvg(
  o: StampImageValues,
  picture: StampPicture,
  page: { width: number; height: number },
): string {
  const { x, y, w, h } = placement(o, picture, page);
  const href = `data:${picture.mime};base64,${picture.bytes.toString('base64')}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${page.width}pt" height="${page.height}pt" viewBox="0 0 ${page.width} ${page.height}"><image href="${href}" x="${x.toFixed(2)}" y="${y.toFixed(2)}" width="${w.toFixed(2)}" height="${h.toFixed(2)}" opacity="${o.stamp_image_opacity ?? 1}" preserveAspectRatio="xMidYMid meet"/></svg>\n`;
}

/**
 * The picture overlay: one page per distinct page size, and for each page of the document the
 * number of its overlay page (qpdf's `--from`, so each size's picture is one shared object).
 */
export async function writeStampPictureSvgs(
  o: StampImageValues,
  picture: StampPicture,
  pages: readonly { width: number; height: number }[],
  ctx: StepContext,
): Promise<{ svgs: string[]; from: number[] }> {
  const sizes = new Map<string, number>();
  const svgs: string[] = [];
  const from: number[] = [];
  for (const page of pages) {
    const key = `${page.width.toFixed(2)}x${page.height.toFixed(2)}`;
    let n = sizes.get(key);
    if (n === undefined) {
      n = sizes.size + 1;
      sizes.set(key, n);
      const file = join(ctx.workDir, `stamp-picture-${n}.svg`);
      await writeFile(file, stampPictureSvg(o, picture, page));
      svgs.push(file);
    }
    from.push(n);
  }
  return { svgs, from };
}

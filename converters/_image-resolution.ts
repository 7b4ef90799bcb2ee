import type { Metadata } from 'sharp';
import { pngResolution } from './_png-pdf.js';

/**
 * The resolution a picture states, across and down (they may differ: a fax is 204 x 196 dpi).
 * libvips reports one figure (the horizontal one), so the two headers that carry both in a few
 * bytes are read here: a PNG's pHYs and a JPEG's JFIF segment. Otherwise libvips' figure serves
 * for both (EXIF and TIFF resolution) when the file gives its unit, and a picture that states
 * none is taken at 96 dpi.
 */

/** The resolution of a picture that states none: a screen's (CSS pixels), as browsers take it. */
export const DEFAULT_IMAGE_DPI = 96;

/**
 * Below this a stated resolution is a placeholder, not a picture's: JFIF's 1:1 aspect, and the
 * 1 pixel per millimetre (25.4 dpi) libvips writes when a picture it made was given none.
 */
const MIN_CREDIBLE_DPI = 30;

export type Resolution = [number, number];

const credible = (r: Resolution | undefined): Resolution | undefined =>
  r && r[0] >= MIN_CREDIBLE_DPI && r[1] >= MIN_CREDIBLE_DPI ? r : undefined;

/** JFIF APP0, right after the start of image: units (1: inch, 2: cm), then x and y density. */
function jfifResolution(file: Buffer): Resolution | undefined {
  if (file.length < 20 || file.readUInt16BE(0) !== 0xffd8 || file.readUInt16BE(2) !== 0xffe0)
    return undefined;
  if (file.toString('latin1', 6, 11) !== 'JFIF\0') return undefined;
  const unit = file[13] === 1 ? 1 : file[13] === 2 ? 2.54 : 0;
  if (!unit) return undefined;
  return [file.readUInt16BE(14) * unit, file.readUInt16BE(16) * unit];
}

/** The resolution a picture's file states, across and down as stored; undefined when none. */
export function statedResolution(meta: Metadata, head: Buffer): Resolution | undefined {
  const own =
    meta.format === 'png' ? pngResolution(head) : meta.format === 'jpeg' ? jfifResolution(head) : undefined;
  // libvips says 72 of a picture that states nothing; a unit says the figure is the file's own.
  const stated = meta.format !== 'png' && meta.resolutionUnit !== undefined && meta.density;
  const vips = stated ? ([stated, stated] as Resolution) : undefined;
  return credible(own) ?? credible(vips);
}

/** The resolution to lay a picture out at: the one asked, else the one it states, else 96 dpi. */
export function resolutionOf(meta: Metadata, head: Buffer, asked?: number): Resolution {
  if (asked) return [asked, asked];
  const [x, y] = statedResolution(meta, head) ?? [DEFAULT_IMAGE_DPI, DEFAULT_IMAGE_DPI];
  // Turned upright by its EXIF orientation, a picture's columns become its rows.
  return (meta.orientation ?? 1) >= 5 ? [y, x] : [x, y];
}

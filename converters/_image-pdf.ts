import { open, readFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import type { Sharp, SharpOptions } from 'sharp';
import sharp from 'sharp';
import { type Resolution, resolutionOf } from './_image-resolution.js';
import { type PageLayout, placePicture } from './_page-layout.js';
import { pngSamples } from './_png-pdf.js';

/**
 * Writes images as a PDF with one page per image, each at its own resolution or fitted to a paper
 * (_page-layout.ts).
 *
 * ImageMagick would be the usual tool, but distributions ship a policy that forbids its PDF coder
 * (to keep ghostscript away from untrusted input), and that policy cannot be loosened from a
 * project-level policy file. A PDF holding one image per page is small enough to write here, and
 * its pictures are stored as they came wherever PDF reads their encoding: a JPEG's bytes as they
 * are (DCTDecode), a PNG's compressed rows as they are (FlateDecode with PNG predictors). Other
 * pictures, and PNGs with alpha or interlacing, are re-encoded losslessly as PNG rows first, their
 * alpha as a soft mask beside them.
 */

/** PDF pages may not be larger than 200 inches (14400 points) on either side. */
const MAX_PAGE_POINTS = 14_400;

export interface PdfImage {
  width: number;
  height: number;
  /** Pixels per inch across and down, for the page size. */
  dpi: Resolution;
  bitsPerComponent: number;
  /** DCTDecode (JPEG bytes as they are) or FlateDecode (a zlib stream, with `predictor` PNG rows). */
  filter: 'DCTDecode' | 'FlateDecode';
  /** Samples per pixel of PNG rows (1 or 3), when the data are a PNG's filtered rows. */
  predictorColors?: number;
  colorSpace: 'DeviceRGB' | 'DeviceGray';
  /** An ICC profile for the colour space, zlib-compressed. */
  icc?: Buffer;
  /** RGB triplets: the samples are indexes into them. */
  palette?: Buffer;
  data: Buffer;
  /** The alpha channel, a gray image of the same size (a soft mask). */
  alpha?: PdfImage;
}

/** A picture's PNG rows as an image of the PDF (FlateDecode, PNG predictors). */
function fromPng(png: Buffer, dpi: Resolution): PdfImage | undefined {
  const s = pngSamples(png);
  if (!s) return undefined;
  return {
    width: s.width,
    height: s.height,
    dpi,
    bitsPerComponent: s.bitDepth,
    filter: 'FlateDecode',
    predictorColors: s.colors,
    colorSpace: s.colors === 3 || s.palette ? 'DeviceRGB' : 'DeviceGray',
    icc: s.icc,
    palette: s.palette,
    data: s.data,
  };
}

/**
 * Prepares one frame of an image for a PDF page at `dpi` (default: the resolution it states).
 * JPEG and PNG files that need no change are embedded as they are; other images are re-encoded
 * losslessly in sRGB.
 */
export async function pdfImageFromFile(
  file: string,
  inputOptions: SharpOptions,
  dpi?: number,
): Promise<PdfImage> {
  const meta = await sharp(file, inputOptions).metadata();
  // JPEG and PNG files are read whole: their bytes go into the PDF as they are.
  const whole = meta.format === 'jpeg' || meta.format === 'png' ? await readFile(file) : Buffer.alloc(0);
  const resolution = resolutionOf(meta, whole, dpi);
  const upright = (meta.orientation ?? 1) === 1;
  const plainJpeg =
    meta.format === 'jpeg' &&
    upright &&
    ((meta.space === 'srgb' && meta.channels === 3) || (meta.space === 'b-w' && meta.channels === 1));
  if (plainJpeg && meta.width && meta.height) {
    return {
      width: meta.width,
      height: meta.height,
      dpi: resolution,
      bitsPerComponent: 8,
      filter: 'DCTDecode',
      colorSpace: meta.channels === 1 ? 'DeviceGray' : 'DeviceRGB',
      icc: meta.icc ? deflateSync(meta.icc) : undefined,
      data: whole,
    };
  }
  if (meta.format === 'png' && upright) {
    const asIs = fromPng(whole, resolution);
    if (asIs) return asIs;
  }
  const image = (): Sharp => sharp(file, inputOptions).rotate();
  const rows = await image().toColourspace('srgb').removeAlpha().png().toBuffer();
  const picture = fromPng(rows, resolution);
  if (!picture) throw new Error('libvips wrote a PNG that PDF cannot hold');
  if (meta.hasAlpha) {
    const mask = await image().extractChannel('alpha').toColourspace('b-w').png().toBuffer();
    picture.alpha = fromPng(mask, resolution);
  }
  return picture;
}

/** The colour space of an image, with the objects it needs added first. */
function colorSpaceOf(img: PdfImage, add: (body: Buffer | string) => number, stream: Stream): string {
  let base = `/${img.colorSpace}`;
  if (img.icc) {
    const n = img.colorSpace === 'DeviceRGB' ? 3 : 1;
    base = `[/ICCBased ${add(stream(`/N ${n} /Alternate /${img.colorSpace} /Filter /FlateDecode`, img.icc))} 0 R]`;
  }
  if (!img.palette) return base;
  const entries = Math.floor(img.palette.length / 3);
  return `[/Indexed ${base} ${entries - 1} <${img.palette.subarray(0, entries * 3).toString('hex')}>]`;
}

type Stream = (dict: string, data: Buffer) => Buffer;

/** The image XObject (and its soft mask and colour space objects); its object number. */
function addImage(img: PdfImage, add: (body: Buffer | string) => number, stream: Stream): number {
  const smask = img.alpha ? addImage(img.alpha, add, stream) : undefined;
  const parms = img.predictorColors
    ? ` /DecodeParms << /Predictor 15 /Colors ${img.predictorColors} /BitsPerComponent ${img.bitsPerComponent} /Columns ${img.width} >>`
    : '';
  const dict =
    `/Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height}` +
    ` /BitsPerComponent ${img.bitsPerComponent} /ColorSpace ${colorSpaceOf(img, add, stream)}` +
    ` /Filter /${img.filter}${parms}${smask ? ` /SMask ${smask} 0 R` : ''}`;
  return add(stream(dict, img.data));
}

/** The page's content: the picture drawn into its box, clipped to the paper inside its margins. */
function pageContent(img: PdfImage, layout: PageLayout): { page: [number, number]; content: string } {
  let w = (img.width * 72) / img.dpi[0];
  let h = (img.height * 72) / img.dpi[1];
  if (!layout.paper) {
    const shrink = Math.min(1, MAX_PAGE_POINTS / w, MAX_PAGE_POINTS / h);
    w *= shrink;
    h *= shrink;
  }
  const p = placePicture(w, h, layout);
  const clip = p.clip ? `${p.clip.join(' ')} re W n ` : '';
  return { page: p.page, content: `q ${clip}${p.width} 0 0 ${p.height} ${p.x} ${p.y} cm /Im0 Do Q` };
}

/** Streams a PDF with one page per image to `output`, laid out as `layout` says. */
export async function writeImagesPdf(
  images: PdfImage[],
  output: string,
  layout: PageLayout = {},
): Promise<void> {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string): number => {
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    return objects.length;
  };
  const stream: Stream = (dict, data) =>
    Buffer.concat([
      Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]);

  // Objects 1 and 2 are the catalog and the page tree; pages follow.
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add('');
  const pageIds: number[] = [];
  for (const img of images) {
    const xobject = addImage(img, add, stream);
    const { page, content } = pageContent(img, layout);
    const contentId = add(stream('', Buffer.from(content, 'latin1')));
    pageIds.push(
      add(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page[0]} ${page[1]}] /Resources << /XObject << /Im0 ${xobject} 0 R >> >> /Contents ${contentId} 0 R >>`,
      ),
    );
  }
  objects[1] = Buffer.from(
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`,
    'latin1',
  );
  // 16-bit samples are PDF 1.5's.
  const deep = images.some((i) => i.bitsPerComponent > 8 || (i.alpha?.bitsPerComponent ?? 0) > 8);
  await writeObjects(objects, output, deep ? '1.5' : '1.4');
}

/** The objects, numbered from 1 in order, with their cross-reference table; object 1 is the root. */
async function writeObjects(objects: readonly Buffer[], output: string, version: string): Promise<void> {
  const file = await open(output, 'w');
  try {
    let offset = 0;
    const write = async (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
      await file.write(buf);
      offset += buf.length;
    };
    await write(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`);
    const offsets: number[] = [];
    for (const [i, body] of objects.entries()) {
      offsets.push(offset);
      await write(`${i + 1} 0 obj\n`);
      await write(body);
      await write('\nendobj\n');
    }
    const xref = offset;
    await write(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
    for (const o of offsets) await write(`${String(o).padStart(10, '0')} 00000 n \n`);
    await write(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  } finally {
    await file.close();
  }
}

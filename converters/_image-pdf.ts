import { open, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflate as deflateCallback } from 'node:zlib';
import type { Sharp, SharpOptions } from 'sharp';
import sharp from 'sharp';

/**
 * Writes images as a PDF with one page per image, each image drawn at its own resolution.
 *
 * ImageMagick would be the usual tool, but distributions ship a policy that forbids its PDF coder
 * (to keep ghostscript away from untrusted input), and that policy cannot be loosened from a
 * project-level policy file. A PDF holding one image per page is small enough to write here:
 * JPEG data goes in as it is (DCTDecode), everything else as deflated RGB with a soft mask for alpha.
 *
 * No pixel is touched on the event loop: libvips splits the channels on its own threads and zlib
 * deflates on libuv's thread pool. A 7000 x 7000 picture split in JavaScript and deflated with
 * deflateSync held the server's loop for about half a second per input of a merge.
 */

const deflate = promisify(deflateCallback);

/** PDF pages may not be larger than 200 inches (14400 points) on either side. */
const MAX_PAGE_POINTS = 14_400;

export interface PdfImage {
  width: number;
  height: number;
  /** Pixels per inch, for the page size. */
  dpi: number;
  /** DCTDecode (JPEG bytes as they are) or FlateDecode (deflated raw samples). */
  filter: 'DCTDecode' | 'FlateDecode';
  colorSpace: 'DeviceRGB' | 'DeviceGray';
  data: Buffer;
  /** Deflated 8-bit alpha samples. */
  alpha?: Buffer;
}

/**
 * Prepares one frame of an image for a PDF page. JPEG files that need no change are embedded
 * byte for byte; other images are decoded to sRGB samples.
 */
export async function pdfImageFromFile(file: string, inputOptions: SharpOptions): Promise<PdfImage> {
  const meta = await sharp(file, inputOptions).metadata();
  const dpi = meta.density && meta.density >= 10 ? meta.density : 72;
  const plainJpeg =
    meta.format === 'jpeg' &&
    (meta.orientation ?? 1) === 1 &&
    ((meta.space === 'srgb' && meta.channels === 3) || (meta.space === 'b-w' && meta.channels === 1));
  if (plainJpeg && meta.width && meta.height) {
    return {
      width: meta.width,
      height: meta.height,
      dpi,
      filter: 'DCTDecode',
      colorSpace: meta.channels === 1 ? 'DeviceGray' : 'DeviceRGB',
      data: await readFile(file),
    };
  }
  const image: Sharp = sharp(file, inputOptions).rotate().toColourspace('srgb');
  if (meta.hasAlpha) {
    const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: info.width, height: info.height, channels: 4 as const } };
    const [rgb, alpha] = await Promise.all([
      sharp(data, raw).removeAlpha().raw().toBuffer(),
      sharp(data, raw).extractChannel(3).raw().toBuffer(),
    ]);
    return flate(info.width, info.height, dpi, rgb, alpha);
  }
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return flate(info.width, info.height, dpi, data);
}

async function flate(
  width: number,
  height: number,
  dpi: number,
  rgb: Buffer,
  alpha?: Buffer,
): Promise<PdfImage> {
  const [data, mask] = await Promise.all([deflate(rgb), alpha ? deflate(alpha) : undefined]);
  return { width, height, dpi, filter: 'FlateDecode', colorSpace: 'DeviceRGB', data, alpha: mask };
}

/** Page size in points for an image: its pixel size at its resolution, shrunk to PDF's page limit. */
function pageSize(img: PdfImage): [number, number] {
  let w = (img.width * 72) / img.dpi;
  let h = (img.height * 72) / img.dpi;
  const shrink = Math.min(1, MAX_PAGE_POINTS / w, MAX_PAGE_POINTS / h);
  w *= shrink;
  h *= shrink;
  return [Number(w.toFixed(2)), Number(h.toFixed(2))];
}

/** Streams a PDF with one page per image to `output`. */
export async function writeImagesPdf(images: PdfImage[], output: string): Promise<void> {
  // Each object is kept as its pieces: a picture's samples are written as they are, never copied.
  const objects: Buffer[][] = [];
  const add = (body: Buffer[] | string): number => {
    objects.push(typeof body === 'string' ? [Buffer.from(body, 'latin1')] : body);
    return objects.length;
  };
  const stream = (dict: string, data: Buffer): Buffer[] => [
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ];

  // Objects 1 and 2 are the catalog and the page tree; pages follow.
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add('');
  const pageIds: number[] = [];
  for (const img of images) {
    const base = `/Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /BitsPerComponent 8`;
    const smask = img.alpha
      ? add(stream(`${base} /ColorSpace /DeviceGray /Filter /FlateDecode`, img.alpha))
      : undefined;
    const xobject = add(
      stream(
        `${base} /ColorSpace /${img.colorSpace} /Filter /${img.filter}${smask ? ` /SMask ${smask} 0 R` : ''}`,
        img.data,
      ),
    );
    const [w, h] = pageSize(img);
    const content = add(stream('', Buffer.from(`q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`, 'latin1')));
    pageIds.push(
      add(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${xobject} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[1] = [
    Buffer.from(
      `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`,
      'latin1',
    ),
  ];

  const file = await open(output, 'w');
  try {
    let offset = 0;
    const write = async (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
      await file.write(buf);
      offset += buf.length;
    };
    await write('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n');
    const offsets: number[] = [];
    for (const [i, body] of objects.entries()) {
      offsets.push(offset);
      await write(`${i + 1} 0 obj\n`);
      for (const piece of body) await write(piece);
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

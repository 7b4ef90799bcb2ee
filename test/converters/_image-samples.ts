import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { execa } from 'execa';
import sharp, { type Sharp } from 'sharp';

/** Sample inputs made at test time, and a magic-byte check for outputs. */

/** A w x h RGB gradient (optionally with a half-transparent alpha channel) as PNG. */
export async function gradientPng(path: string, width = 64, height = 48, alpha = false): Promise<string> {
  const channels = alpha ? 4 : 3;
  const buf = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      buf[i] = (x * 255) / width;
      buf[i + 1] = (y * 255) / height;
      buf[i + 2] = 128;
      if (alpha) buf[i + 3] = x < width / 2 ? 255 : 96;
    }
  }
  await sharp(buf, { raw: { width, height, channels } }).png().toFile(path);
  return path;
}

/** Writes a sample of `format` made with sharp from a gradient PNG. */
export async function sharpSample(dir: string, format: string, width = 64, height = 48): Promise<string> {
  const png = await gradientPng(join(dir, `src-${format}.png`), width, height);
  if (format === 'png') return png;
  const out = join(dir, `sample.${format}`);
  const image = sharp(png);
  const encoders: Record<string, () => Sharp> = {
    jpg: () => image.jpeg(),
    webp: () => image.webp(),
    avif: () => image.avif(),
    tiff: () => image.tiff(),
    gif: () => image.gif(),
  };
  const encode = encoders[format];
  if (!encode) throw new Error(`no sharp sample for ${format}`);
  await encode().toFile(out);
  return out;
}

/** One PNG chunk: length, type, data and the CRC over type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A tiny PNG whose header claims `side` x `side` pixels: a pixel flood. */
export function pixelFloodPng(path: string, side = 100_000): string {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const png = Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
  writeFileSync(path, png);
  return path;
}

const GS = ['-dSAFER', '-dBATCH', '-dNOPAUSE', '-dNOPROMPT', '-q'];

/** A PDF with a text layer: one line of text per page, drawn by ghostscript from PostScript. */
export async function textPdf(dir: string, lines: string[], name = 'text.pdf'): Promise<string> {
  const ps = join(dir, `${name}.ps`);
  const body = lines.map((l) => `72 700 moveto (${l}) show showpage`).join('\n');
  writeFileSync(ps, `%!PS\n/Helvetica findfont 24 scalefont setfont\n${body}\n`);
  const out = join(dir, name);
  await execa('gs', [...GS, '-sDEVICE=pdfwrite', `-sOutputFile=${out}`, ps]);
  return out;
}

/** A copy of `pdf` that needs the user password `secret` to open. */
export async function encryptedPdf(pdf: string, out: string): Promise<string> {
  await execa('gs', [
    ...GS,
    '-sDEVICE=pdfwrite',
    '-sOwnerPassword=owner-pw',
    '-sUserPassword=secret',
    `-sOutputFile=${out}`,
    pdf,
  ]);
  return out;
}

/** A PostScript program of `pages` pages, and an EPS with a bounding box. */
export function postscriptSamples(dir: string): { ps: string; eps: string } {
  const ps = join(dir, 'sample.ps');
  writeFileSync(
    ps,
    '%!PS\n/Helvetica findfont 20 scalefont setfont\n72 700 moveto (PostScript one) show showpage\n72 700 moveto (PostScript two) show showpage\n',
  );
  const eps = join(dir, 'sample.eps');
  writeFileSync(
    eps,
    '%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 200 100\n%%EndComments\n0 0 1 setrgbcolor 0 0 200 100 rectfill\n1 setgray /Helvetica findfont 18 scalefont setfont 20 40 moveto (EPS sample) show\n%%EOF\n',
  );
  return { ps, eps };
}

/** The format the first bytes of a file say it is, or undefined. */
export function sniff(path: string): string | undefined {
  const b = readFileSync(path).subarray(0, 64);
  const ascii = b.toString('latin1');
  if (b[0] === 0x89 && ascii.startsWith('PNG', 1)) return 'png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpg';
  if (ascii.startsWith('GIF8')) return 'gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'webp';
  if (ascii.slice(4, 8) === 'ftyp') {
    const brand = ascii.slice(8, 12);
    if (brand === 'avif') return 'avif';
    if (['heic', 'heix', 'mif1', 'msf1'].includes(brand)) return 'heic';
  }
  if (ascii.startsWith('II*\0') || ascii.startsWith('MM\0*')) return 'tiff';
  if (ascii.startsWith('BM')) return 'bmp';
  if (b[0] === 0 && b[1] === 0 && b[2] === 1 && b[3] === 0) return 'ico';
  if (ascii.startsWith('8BPS')) return 'psd';
  if (ascii.startsWith('%PDF-')) return 'pdf';
  if (ascii.startsWith('%!PS-Adobe-3.0 EPSF')) return 'eps';
  if (ascii.startsWith('%!PS')) return 'ps';
  return undefined;
}

/** A PDF whose page n is widths[n-1] x 100 points, with its number as text: page order is visible. */
export async function sizedPagesPdf(dir: string, widths: number[], name = 'sized.pdf'): Promise<string> {
  const ps = join(dir, `${name}.ps`);
  const pages = widths.map(
    (w, i) =>
      `<< /PageSize [${w} 100] >> setpagedevice /Helvetica findfont 20 scalefont setfont 10 40 moveto (Page ${i + 1}) show showpage`,
  );
  writeFileSync(ps, `%!PS\n${pages.join('\n')}\n`);
  const out = join(dir, name);
  await execa('gs', [...GS, '-sDEVICE=pdfwrite', `-sOutputFile=${out}`, ps]);
  return out;
}

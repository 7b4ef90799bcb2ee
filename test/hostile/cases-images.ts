import { bmpBomb, gifBomb, jpegBomb, pngBomb, truncatedFixture, webpBomb } from './build.js';
import type { HostileCase } from './harness.js';

/** ImageMagick, sharp and SVG engines against coder tricks, external references and pixel floods. */
export const imageCases: HostileCase[] = [
  {
    name: 'imagemagick: MVG script named .bmp',
    attack: 'MVG drawing commands that read a local file and paint @file text (ImageTragick)',
    from: 'bmp',
    to: 'png',
    engine: 'imagemagick',
    make: (c) =>
      `push graphic-context\nviewbox 0 0 64 64\nimage over 0,0 0,0 '${c.files.png}'\ntext 0,20 '@${c.files.txt}'\nimage over 0,0 0,0 'url(${c.url})'\npop graphic-context\n`,
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'imagemagick: MSL script named .psd',
    attack: 'MSL that reads the secret file and writes a copy elsewhere',
    from: 'psd',
    to: 'png',
    engine: 'imagemagick',
    make: (c) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<image><read filename="${c.files.png}"/><write filename="${c.dir}/pwned.png"/></image>\n`,
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'imagemagick: SVG with url() and text:@file named .ico',
    attack: 'SVG handed to ImageMagick: fill url() to the canary, image href text:@secret and ephemeral:',
    from: 'ico',
    to: 'png',
    engine: 'imagemagick',
    make: (c) =>
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64"><rect width="64" height="64" style="fill:url(${c.url})"/><image xlink:href="text:${c.files.txt}" width="64" height="64"/><image xlink:href="ephemeral:${c.files.png}" width="8" height="8"/></svg>`,
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'imagemagick: pixel-flood BMP header',
    attack: 'a 70-byte BMP declaring 100000 x 100000 pixels',
    from: 'bmp',
    to: 'png',
    engine: 'imagemagick',
    make: () => bmpBomb(100_000, 100_000),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'imagemagick: pixel-flood PNG',
    attack: 'a PNG declaring 200000 x 200000 pixels, read by ImageMagick',
    from: 'png',
    to: 'bmp',
    engine: 'imagemagick',
    make: () => pngBomb(200_000, 200_000),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'imagemagick: pixel-flood GIF',
    attack: 'a GIF declaring a 65535 x 65535 screen and frame',
    from: 'gif',
    to: 'bmp',
    engine: 'imagemagick',
    make: () => gifBomb(65_535, 65_535),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'imagemagick: truncated PSD',
    attack: 'a Photoshop file cut after 200 bytes',
    from: 'psd',
    to: 'png',
    engine: 'imagemagick',
    make: () => truncatedFixture('image.psd', 200),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'sharp: PNG dimension bomb (header)',
    attack: 'a PNG header declaring 100000 x 100000 pixels',
    from: 'png',
    to: 'jpg',
    engine: 'sharp',
    make: () => pngBomb(100_000, 100_000),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'sharp: PNG decompression bomb (real rows)',
    attack: 'a 20000 x 20000 PNG whose zero rows compress to a few hundred KB',
    from: 'png',
    to: 'webp',
    engine: 'sharp',
    make: () => pngBomb(20_000, 20_000, true),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'sharp: JPEG dimension bomb',
    attack: 'a JPEG frame header declaring 65500 x 65500 pixels',
    from: 'jpg',
    to: 'png',
    engine: 'sharp',
    make: () => jpegBomb(65_500, 65_500),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'sharp: WebP dimension bomb',
    attack: 'a lossless WebP header declaring 16384 x 16384 pixels with no data',
    from: 'webp',
    to: 'png',
    engine: 'sharp',
    make: () => webpBomb(16_384, 16_384),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'sharp: GIF dimension bomb',
    attack: 'a GIF declaring a 65535 x 65535 frame',
    from: 'gif',
    to: 'png',
    engine: 'sharp',
    make: () => gifBomb(65_535, 65_535),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'sharp: truncated PNG',
    attack: 'a PNG cut in its first chunk',
    from: 'png',
    to: 'jpg',
    engine: 'sharp',
    make: () => truncatedFixture('image.png', 40),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'sharp: SVG with external entity (XXE)',
    attack: 'an SVG whose DOCTYPE declares a SYSTEM entity on the secret file',
    from: 'svg',
    to: 'png',
    engine: 'sharp',
    make: (c) =>
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file://${c.files.txt}">]><svg xmlns="http://www.w3.org/2000/svg" width="400" height="40"><text y="20">&x;</text></svg>`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'sharp: SVG with remote and local image href',
    attack: 'an SVG embedding the canary URL and the secret PNG by absolute path',
    from: 'svg',
    to: 'png',
    engine: 'sharp',
    make: (c) =>
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="32" height="32"><image xlink:href="${c.url}x.png" width="16" height="16"/><image xlink:href="file://${c.files.png}" x="16" width="16" height="16"/><image href="${c.files.png}" y="16" width="16" height="16"/></svg>`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'rsvg: SVG with external entity (XXE)',
    attack: 'an SVG whose DOCTYPE declares a SYSTEM entity on the secret file, to PDF (text would show)',
    from: 'svg',
    to: 'pdf',
    engine: 'rsvg',
    make: (c) =>
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file://${c.files.txt}">]><svg xmlns="http://www.w3.org/2000/svg" width="400" height="40"><text y="20">&x;</text></svg>`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'rsvg: SVG with XInclude of a local file',
    attack: 'xi:include parse="text" of the secret file inside a text element',
    from: 'svg',
    to: 'pdf',
    engine: 'rsvg',
    make: (c) =>
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xi="http://www.w3.org/2001/XInclude" width="400" height="40"><text y="20"><xi:include href="${c.files.txt}" parse="text"/></text></svg>`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'rsvg: SVG with remote href, CSS import and local file image',
    attack: 'image href to the canary URL, @import of the canary, image href to the secret PNG',
    from: 'svg',
    to: 'png',
    engine: 'rsvg',
    make: (c) =>
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="32" height="32"><style>@import url(${c.url}style.css);</style><image xlink:href="${c.url}a.png" width="16" height="16"/><image xlink:href="file://${c.files.png}" x="16" width="16" height="16"/><use xlink:href="file://${c.files.svg}#x"/></svg>`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'rsvg: SVG billion laughs',
    attack: 'nested internal entities expanding to gigabytes',
    from: 'svg',
    to: 'png',
    engine: 'rsvg',
    timeoutMs: 30_000,
    make: () =>
      `<?xml version="1.0"?><!DOCTYPE svg [${billionLaughsEntities()}]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&l9;</text></svg>`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
];

/** `<!ENTITY l0 "lol"> <!ENTITY l1 "&l0;&l0;...">` ten levels of ten: 10^9 copies. */
export function billionLaughsEntities(): string {
  let s = '<!ENTITY l0 "lol">';
  for (let i = 1; i <= 9; i++) s += `<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`;
  return s;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DETECT_FIXTURES, docx, para, zip } from './build.js';
import { type Canary, caseGroup, type HostileCase } from './harness.js';

/**
 * Files that are a different kind of thing than their declared format: each would reach a parser
 * chosen for something else if an engine sniffed the content. The declared-format check refuses
 * them before any engine runs (FORMAT_MISMATCH), and the last cases show it leaves text read by a
 * pinned text parser alone.
 */

const fixture = (name: string) => readFileSync(join(DETECT_FIXTURES, name));

function svgWithReferences(c: Canary): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64"><image xlink:href="${c.url}svg.png" width="32" height="32"/><image xlink:href="file://${c.files.png}" width="32" height="32"/><text>&amp;</text></svg>`;
}

function mvg(c: Canary): string {
  return `push graphic-context\nviewbox 0 0 64 64\nimage over 0,0 0,0 '${c.files.png}'\nimage over 0,0 0,0 'url(${c.url}mvg)'\npop graphic-context\n`;
}

const disguised = caseGroup('disguised', { allowed: { codes: ['FORMAT_MISMATCH'] } });

export const disguisedCases: HostileCase[] = [
  disguised(
    'SVG declared as png, to jpg',
    'the outside suite: an SVG uploaded as png-jpg reached an SVG renderer',
    'png',
    'jpg',
    svgWithReferences,
  ),
  disguised('SVG declared as webp, to png', 'an SVG in a WebP step', 'webp', 'png', svgWithReferences),
  disguised('SVG declared as gif, to png', 'an SVG in a GIF step', 'gif', 'png', svgWithReferences),
  disguised('SVG declared as tiff, to pdf', 'an SVG in a TIFF to PDF step', 'tiff', 'pdf', svgWithReferences),
  disguised('MVG declared as png, to jpg', 'an ImageMagick drawing script as a PNG', 'png', 'jpg', mvg),
  disguised('MVG declared as bmp, to png', 'an ImageMagick drawing script as a BMP', 'bmp', 'png', mvg),
  disguised(
    'MSL declared as jpg, to png',
    'an ImageMagick scripting document that writes next to the secrets',
    'jpg',
    'png',
    (c) =>
      `<?xml version="1.0"?><image><read filename="${c.files.png}"/><write filename="${c.dir}/pwned.png"/></image>`,
  ),
  disguised(
    'HTML declared as docx, to pdf',
    'an HTML page (remote and local images) handed to the Word import',
    'docx',
    'pdf',
    (c) =>
      `<!doctype html><html><body><p>page</p><img src="${c.url}h.png"><img src="file://${c.files.png}"></body></html>`,
  ),
  disguised(
    'HTML declared as xlsx, to csv',
    'an HTML table handed to the spreadsheet import (web query)',
    'xlsx',
    'csv',
    (c) => `<html><body><table><tr><td>=WEBSERVICE("${c.url}x")</td></tr></table></body></html>`,
  ),
  disguised(
    'RTF declared as doc, to pdf',
    'RTF field codes handed to the Word 97 import',
    'doc',
    'pdf',
    (c) => `{\\rtf1\\ansi{\\field{\\*\\fldinst INCLUDEPICTURE "${c.files.png}" \\\\d}{\\fldrslt x}}\\par}`,
  ),
  disguised(
    'PostScript declared as pdf, to png',
    'a PostScript program (it reads the secret) where a PDF is expected',
    'pdf',
    'png',
    (c) => `%!PS\n(${c.files.txt}) (r) file 100 string readstring pop print\nshowpage\n`,
  ),
  disguised(
    'HLS playlist declared as mp4, to mp3',
    'an m3u8 playlist naming the canary URL and the secret file as media',
    'mp4',
    'mp3',
    (c) =>
      `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${c.url}seg.ts\n#EXTINF:1,\nfile://${c.files.txt}\n#EXT-X-ENDLIST\n`,
  ),
  disguised(
    'ffconcat list declared as wav, to mp3',
    'a concat list naming the secret file',
    'wav',
    'mp3',
    (c) => `ffconcat version 1.0\nfile '${c.files.txt}'\nfile '${c.url}a.wav'\n`,
  ),
  disguised(
    'XML with an external entity declared as xlsx, to csv',
    'flat XML handed to the spreadsheet import',
    'xlsx',
    'csv',
    (c) => `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY s SYSTEM "file://${c.files.txt}">]><x>&s;</x>`,
  ),
  disguised(
    'PDF declared as png, to jpg',
    'a PDF (its own parser, fonts, scripts) where a PNG is expected',
    'png',
    'jpg',
    () => fixture('document.pdf'),
  ),
  disguised('JPEG declared as png, to webp', 'another decoder than the declared one', 'png', 'webp', () =>
    fixture('image.jpg'),
  ),
  disguised('GIF declared as jpg, to png', 'another decoder than the declared one', 'jpg', 'png', () =>
    fixture('image.gif'),
  ),
  disguised('MP3 declared as wav, to flac', 'another demuxer than the declared one', 'wav', 'flac', () =>
    fixture('audio.mp3'),
  ),
  disguised(
    'docx declared as odt, to pdf',
    'another office import filter than the declared one',
    'odt',
    'pdf',
    () => docx(para('a Word document')),
  ),
  disguised(
    'plain ZIP declared as docx, to pdf',
    'an archive that is no Word document (a script and a text file inside)',
    'docx',
    'pdf',
    (c) => zip({ 'bin/run.sh': `#!/bin/sh\ncat ${c.files.txt}\n`, 'readme.txt': 'not a document' }),
  ),
  disguised(
    'EPS declared as jpg, to png',
    'PostScript (a program) where a JPEG is expected',
    'jpg',
    'png',
    (c) => `%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n(${c.files.txt}) (r) file pop\n`,
  ),
  {
    name: 'disguised: Markdown with raw HTML stays Markdown (md to html)',
    attack: 'text declared as another text format is read by the declared (pinned, sandboxed) parser only',
    from: 'md',
    to: 'html',
    make: (c) => `# Title\n\n<img src="${c.url}md.png">\n\n![x](file://${c.files.png})\n`,
    allowed: { output: true },
  },
  {
    name: 'disguised: SVG declared as xml stays XML (xml to json)',
    attack: 'an SVG with an external entity read by the XML data parser it was declared for',
    from: 'xml',
    to: 'json',
    make: (c) =>
      `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><image href="file://${c.files.png}"/></svg>`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
];

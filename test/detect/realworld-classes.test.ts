import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFile } from '../../src/detect/index.js';
import { sniffText } from '../../src/detect/text/index.js';
import { fixture } from './helpers.js';

// The detection classes the real-world corpus (test/corpus) turned up, each shown on a small case.

const dir = mkdtempSync(join(tmpdir(), 'fileconv-classes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function detectBytes(bytes: Buffer): Promise<{ id: string; confidence: number }> {
  const file = join(dir, `case-${n++}`);
  writeFileSync(file, bytes);
  return detectFile(file);
}

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const real = (name: string) => readFileSync(fixture(name));
const sniff = (text: string) => sniffText(Buffer.from(text, 'utf8'), true)?.id;

/** An ID3v2.3 tag holding one title frame, as taggers put in front of audio. */
function id3Tag(title: string): Buffer {
  const text = Buffer.from(`\u0000${title}`, 'latin1');
  const frame = Buffer.concat([Buffer.from('TIT2'), Buffer.from([0, 0, 0, text.length, 0, 0]), text]);
  const size = frame.length;
  const syncsafe = [(size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f];
  return Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, ...syncsafe]), frame]);
}

describe('binary classes', () => {
  it('FLAC behind an ID3v2 tag is FLAC, not MP3', async () => {
    expect((await detectBytes(Buffer.concat([id3Tag('A song'), real('audio.flac')]))).id).toBe('flac');
    expect((await detectBytes(real('audio.mp3'))).id).toBe('mp3');
  });

  it('big-endian RIFX WAVE is WAV', async () => {
    const wav = Buffer.from(real('audio.wav'));
    wav.write('RIFX', 0, 'latin1');
    expect((await detectBytes(wav)).id).toBe('wav');
  });

  it('a PDF whose header follows a few leading bytes is a PDF', async () => {
    const pdf = Buffer.concat([Buffer.from('\r\n\r\nJUNK\r\n'), real('document.pdf')]);
    expect(await detectBytes(pdf)).toEqual({ id: 'pdf', confidence: 0.9 });
  });

  // The header deviations PDF readers tolerate (libmagic and Tika list the BOM and newline ones).
  it.each([
    ['a UTF-8 byte order mark', (pdf: Buffer) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), pdf])],
    ['a newline', (pdf: Buffer) => Buffer.concat([Buffer.from('\n'), pdf])],
    [
      'a binary comment',
      (pdf: Buffer) => Buffer.concat([Buffer.from([0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a]), pdf]),
    ],
    ['a header without its dash', (pdf: Buffer) => Buffer.concat([Buffer.from('%PDF1.'), pdf.subarray(7)])],
  ])('a PDF behind %s is a PDF', async (_name, vary) => {
    const found = await detectBytes(vary(real('document.pdf')));
    expect(found.id).toBe('pdf');
    expect(found.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('prose that mentions a dashless PDF header is not a PDF', async () => {
    const text = Buffer.from('Broken writers emit %PDF1.4 headers.\nReaders still open them.\n');
    expect((await detectBytes(text)).id).toBe('txt');
  });

  it('an AVIF whose major brand is generic HEIF lists avif among its compatible brands', async () => {
    const avif = Buffer.from(real('image.avif'));
    const major = avif.toString('latin1', 8, 12);
    avif.write('mif1', 8, 'latin1');
    expect(major).toBe('avif');
    expect((await detectBytes(avif)).id).toBe('avif');
  });

  it.each([
    ['document.docx', 'docx'],
    ['sheet.xlsx', 'xlsx'],
    ['slides.pptx', 'pptx'],
  ])('%s cut in half is still %s (from its local headers), weakly', async (name, id) => {
    const whole = real(name);
    expect(await detectBytes(whole.subarray(0, whole.length >> 1))).toEqual({ id, confidence: 0.4 });
  });

  it('a BIFF workbook cut before its directory is xls, weakly', async () => {
    const whole = real('sheet.xls');
    const cut = await detectBytes(whole.subarray(0, 4096));
    expect(cut).toEqual({ id: 'xls', confidence: 0.4 });
  });

  it('HTML after a blank head longer than the detection head is HTML', async () => {
    const page = Buffer.concat([Buffer.alloc(100_000, ' \n'), real('page.html')]);
    expect((await detectBytes(page)).id).toBe('html');
  });

  it('UTF-32 text with a BOM is text', async () => {
    const le = Buffer.alloc(4 + 4 * 12);
    le.writeUInt32LE(0xfeff, 0);
    for (const [i, c] of [...'plain words\n'].entries()) le.writeUInt32LE(c.codePointAt(0)!, 4 + i * 4);
    expect((await detectBytes(le)).id).toBe('txt');
  });
});

describe('UTF-32 and audio-only MP4 (classes of the upstream source)', () => {
  it('UTF-32 text without a BOM is text, in either byte order', async () => {
    const json = '{"key": "value", "list": [1, 2, 3]}\n';
    const le = Buffer.alloc(json.length * 4);
    const be = Buffer.alloc(json.length * 4);
    for (const [i, c] of [...json].entries()) {
      le.writeUInt32LE(c.codePointAt(0)!, i * 4);
      be.writeUInt32BE(c.codePointAt(0)!, i * 4);
    }
    expect((await detectBytes(le)).id).toBe('json');
    expect((await detectBytes(be)).id).toBe('json');
  });

  it.skipIf(!hasFfmpeg)(
    'an MP4 whose tracks are all sound is m4a whatever its brand; one with a picture stays mp4 (skipped: no ffmpeg)',
    async () => {
      for (const brand of ['mp42', 'isom']) {
        const out = join(dir, `sound-${brand}.mp4`);
        execFileSync('ffmpeg', [
          '-v',
          'error',
          '-y',
          '-i',
          fixture('audio.m4a'),
          '-c',
          'copy',
          '-brand',
          brand,
          out,
        ]);
        expect(readFileSync(out).toString('latin1', 8, 12)).toBe(brand);
        expect((await detectFile(out)).id).toBe('m4a');
      }
      // the moov after the media data (no faststart), with a video track
      const video = join(dir, 'video-isom.mp4');
      execFileSync('ffmpeg', [
        '-v',
        'error',
        '-y',
        '-i',
        fixture('video.mp4'),
        '-c',
        'copy',
        '-brand',
        'isom',
        video,
      ]);
      expect((await detectFile(video)).id).toBe('mp4');
      expect((await detectFile(fixture('video.mp4'))).id).toBe('mp4');
    },
  );
});

describe('text classes', () => {
  it('a long changelog is read from its first pages: C++ quoted further down does not make it C++', () => {
    const entries = Array.from(
      { length: 160 },
      (_, i) => `Release 0.20.${i} fixed the reader of camera model ${i} and its white balance.\n`,
    ).join('');
    const quoted = [
      '#include <vector>',
      'namespace raw {',
      'template <typename T> class Buffer {',
      'public:',
      '  std::vector<T> data;',
      '  Buffer::Buffer(int n) noexcept;',
      '};',
      '}',
    ].join('\n');
    expect(entries.length).toBeGreaterThan(8192);
    expect(sniff(`${entries}${quoted}\n`)).toBe('txt');
    // The same lines near the top are what the text is.
    expect(sniff(`${quoted}\n${entries}`)).toBe('cpp');
  });

  it('a minified script, one long line after its licence comment, is still scored as a script', () => {
    const body = Array.from(
      { length: 400 },
      (_, i) => `function f${i}(a){return a+${i}};var v${i}=f${i}(1);`,
    ).join('');
    const minified = `/*! example v1.0 | MIT licence */\n${body}export default f1;\n`;
    expect(body.length).toBeGreaterThan(8192);
    expect(sniffText(Buffer.from(minified), true)).toMatchObject({ id: 'js' });
  });

  it.each([
    [
      '% Copyright (C) 2001 Example, Inc.  All rights reserved.\n%\n% Procedures for image operators.\n\n/.imagefix {\n  currentdict /Decode known { pop } if\n  1 index exch\n} bind def\n/.setcs { systemdict /setcolorspace get exec } bind odef\n',
      'ps',
      "a PostScript procedure file without a %! header (an interpreter's initialisation file)",
    ],
    [
      'cmake_minimum_required(VERSION 3.12)\nproject(demo VERSION 1.2 LANGUAGES C)\n\noption(BUILD_TESTING "Build the tests" ON)\nset(CMAKE_C_STANDARD 99)\n\ninclude(CheckIncludeFile)\ncheck_include_file("stdint.h" HAVE_STDINT_H)\n\nif(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")\n    add_compile_options(-Wall -Wextra)\nendif()\n\nadd_library(demo src/demo.c src/util.c)\ntarget_include_directories(demo PUBLIC\n    $<BUILD_INTERFACE:src/include>\n    $<INSTALL_INTERFACE:include>)\n',
      'txt',
      'a CMake list with generator expressions is plain text, not a Makefile (no CMake format)',
    ],
    [
      '## Build\n\n* `make` builds it\n\n```cmake\nadd_library(x x.c)\n```\n\nSee [the guide](guide.md) and **notes**.\n',
      'md',
      'Markdown quoting a CMake line stays Markdown',
    ],
    [
      '/* tcl.h */\n#ifndef _TCL\n#define _TCL\n#include <stdio.h>\ntypedef struct Tcl_Obj {\n  int refCount;\n  char *bytes;\n} Tcl_Obj;\nextern int Tcl_Init(Tcl_Interp *interp);\n#endif\n',
      'c',
      'a C header is C, not CSS',
    ],
    [
      '# Copyright\n\n\nfrom .cell import (\n    absolute_coordinate,\n    cols_from_range,\n)\nfrom .formulas import FORMULAE\n',
      'py',
      'a package __init__ of relative imports',
    ],
    [
      '"""\nModule docs with ``literal`` and a directive.\n\n.. note:: careful\n"""\n\nimport os\n\n\nclass Reader(object):\n\n    def read(self):\n        return os.sep\n',
      'py',
      'Python whose docstrings are reStructuredText',
    ],
    [
      'From the website for the code (from at\nhttp://example.org/lbfgsb.html):\n\n"""\nL-BFGS-B is a limited-memory code.\n"""\n\nThis is a wrapper.\n',
      'txt',
      'a """ under a long line is no reST title',
    ],
    ['# Month "7"\nno-leads = 1987-7-05T17:45:00Z\n', 'toml', 'invalid but plainly TOML'],
    ['a.b=0\n# comment\na={}\n', 'toml', 'unspaced TOML with a dotted key and an inline table'],
    [
      '[console_scripts]\nrun = pkg.__main__:main\nother = pkg.cli:entry\n',
      'txt',
      'INI entry points are not TOML',
    ],
    [
      '# tzdata\n#country-\n#code\tcoordinates\tTZ\tcomments\nAD\t+4230+00131\tEurope/Andorra\nAR\t-3436-05827\tAmerica/Argentina/Buenos_Aires\tBuenos Aires (BA, CF)\nAE\t+2518+05518\tAsia/Dubai\n',
      'tsv',
      'a TSV with # comments and ragged rows',
    ],
    [
      '150,4,setosa,versicolor,virginica\n5.1,3.5,1.4,0.2,0\n4.9,3.0,1.4,0.2,0\n4.7,3.2,1.3,0.2,0\n4.6,3',
      'csv',
      'a CSV under a preamble line, cut mid-row',
    ],
    [
      '{\n  "zu_ZA": "hyph_zu_ZA.dic",\n  "uk_UA": "hyph_uk_UA.dic",\n  "te": "hyph_te_IN.dic",\n  "sv',
      'json',
      'a truncated pretty-printed JSON file',
    ],
    [
      'Title\n=====\n\n:Author: Someone\n\nSome text with ``literal`` words.\n\n.. note:: a directive\n',
      'rst',
      'reStructuredText',
    ],
  ])('%j -> %s (%s)', (text, id) => {
    expect(sniff(text)).toBe(id);
  });
});

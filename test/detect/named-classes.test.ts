import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { sourceFormatOf } from '../../src/core/source-format.js';
import { detect } from '../../src/detect/index.js';
import { fixture, namedFileWriter } from './helpers.js';

// Text and data files whose name says one format and whose bytes say another, and damaged
// containers: each class shown on files of more than one origin.

const write = namedFileWriter('fileconv-named-');

const real = (name: string) => readFileSync(fixture(name));

const CHANGELOG_GNU =
  '2024-03-01  Jane Roe  <jane@example.org>\n\n\t* src/main.c (main): Check the return value.\n\t* README: Mention the new option.\n\n2024-02-11  John Doe  <john@example.org>\n\n\t* configure.ac: Bump the version.\n';
const CHANGELOG_DEBIAN =
  'hello (2.10-3) unstable; urgency=medium\n\n  * Fix the build with a newer compiler.\n  * Update the standards version.\n\n -- Jane Roe <jane@example.org>  Sat, 02 Mar 2024 10:00:00 +0000\n';

describe('a name the text cannot be', () => {
  it.each([
    ['ChangeLog.yaml', CHANGELOG_GNU, 'txt'],
    ['changelog.yaml', CHANGELOG_DEBIAN, 'txt'],
    ['NEWS.yml', 'Version 1.2\n===========\n\nNew: a --quiet flag.\nFixed: a crash on empty input.\n', 'txt'],
  ])('%s stays plain text and is converted as such', async (name, text, id) => {
    const report = await detect(write(name, text));
    expect(report).toMatchObject({ declared: 'yaml', detected: id, match: false });
    expect(sourceFormatOf(report)).toBe(id);
  });

  it.each([
    ['README.xml', '# Project\n\nSome **bold** text and a [link](https://example.org).\n\n- one\n- two\n'],
    ['notes.xml', 'Notes\n\n## Setup\n\nRun `make` first, then:\n\n```sh\nmake install\n```\n'],
    ['real.xml', 'readme.md'],
  ])('Markdown named .xml is md (%s)', async (name, text) => {
    const bytes = text === 'readme.md' ? real('readme.md') : text;
    const report = await detect(write(name, bytes));
    expect(report).toMatchObject({ declared: 'xml', detected: 'md', match: false });
    expect(sourceFormatOf(report)).toBe('md');
  });

  it.each([
    [
      'page.js',
      '<script>\n  window.dataLayer = [];\n  function gtag() { dataLayer.push(arguments); }\n</script>\n<div class="app"><h1>Hello</h1></div>\n',
    ],
    ['index.js', '<script src="app.js"></script>\n<p>Loading...</p>\n'],
    ['widget.ts', '<script type="module">import "./w.js";</script>\n<section><p>x</p></section>\n'],
  ])('an HTML page opening with a script element named %s is html, converted as html', async (name, text) => {
    const report = await detect(write(name, text));
    expect(report).toMatchObject({ detected: 'html', match: false });
    expect(sourceFormatOf(report)).toBe('html');
  });

  it.each([
    ['42', 'a number'],
    ['"a name"', 'a string'],
    ['true\n', 'a boolean'],
  ])('a whole JSON scalar named .json is json (%s, %s)', async (text) => {
    const report = await detect(write('value.json', text));
    expect(report).toMatchObject({ declared: 'json', detected: 'json', match: true });
    expect(sourceFormatOf(report)).toBe('json');
  });

  it.each([
    [
      'CMakeLists.txt',
      'cmake_minimum_required(VERSION 3.1)\nproject(demo)\n\nset(CMAKE_C_FLAGS "${CMAKE_C_FLAGS} -Wall")\nset(SOURCES\n    src/demo.c\n    src/util.c\n)\nadd_executable(demo ${SOURCES})\nadd_custom_target(check\n    COMMAND $(MAKE) -C tests all\n    DEPENDS demo\n    WORKING_DIRECTORY ${CMAKE_BINARY_DIR})\nadd_custom_command(OUTPUT demo.1\n    COMMAND help2man ./demo > demo.1\n    DEPENDS demo)\ninstall(TARGETS demo RUNTIME DESTINATION bin)\n',
    ],
  ])('a .txt name on text that only looks like code stays plain text (%s)', async (name, text) => {
    const report = await detect(write(name, text));
    expect(report).toMatchObject({ declared: 'txt', detected: 'txt', match: true });
    expect(sourceFormatOf(report)).toBe('txt');
  });

  it('a .txt name does not overrule reST that shows its markup (docutils writes .txt)', async () => {
    const rst =
      'Title\n=====\n\nA paragraph with ``literal`` text.\n\n.. note::\n\n   A directive.\n\nSection\n-------\n\n* item one\n* item two\n';
    const report = await detect(write('guide.txt', rst));
    expect(sourceFormatOf(report)).toBe('rst');
  });

  it('a YAML list of strings named .yaml is yaml (a name the text can be)', async () => {
    const report = await detect(write('list.yaml', '- one\n- two\n- three\n'));
    expect(report).toMatchObject({ declared: 'yaml', detected: 'yaml', match: true });
  });

  it('an XML document whose root closes past the head, without a declaration, named .xml is xml', async () => {
    const body = '<item>value</item>\n'.repeat(5000);
    const report = await detect(write('big.xml', `<catalog>\n${body}</catalog>\n`));
    expect(report).toMatchObject({ declared: 'xml', detected: 'xml', match: true });
  });
});

describe('content behind padding or junk', () => {
  it.each([
    ['15 KB of NUL bytes', Buffer.alloc(15_000)],
    ['NUL bytes then blank lines', Buffer.concat([Buffer.alloc(4096), Buffer.from('\n\n  \n')])],
    ['60 KB of NUL bytes', Buffer.alloc(60_000)],
  ])('HTML behind %s is html', async (_what, padding) => {
    for (const page of [real('page.html'), Buffer.from('<html><body><p>saved page</p></body></html>\n')]) {
      const report = await detect(write('page.bin', Buffer.concat([padding, page])));
      expect(report).toMatchObject({ declared: 'bin', detected: 'html', match: false });
    }
  });

  it('NUL bytes before binary data stay unknown', async () => {
    const bytes = Buffer.concat([Buffer.alloc(15_000), Buffer.from([1, 2, 3, 0xff, 0xfe, 0, 7, 8])]);
    expect((await detect(write('blob.bin', bytes))).detected).toBe('bin');
  });

  it.each([
    ['a short binary comment', Buffer.from([0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a])],
    [
      'a binary comment with control bytes',
      Buffer.concat([Buffer.from('%'), Buffer.from([...Array(256).keys()]), Buffer.from('\n')]),
    ],
    ['2 KB of binary junk', Buffer.concat([Buffer.from('%'), Buffer.alloc(2048, 0xa7), Buffer.from('\n')])],
  ])('a PDF behind %s, named .txt, is pdf', async (_what, junk) => {
    for (const pdf of [real('document.pdf'), real('archival.pdfa.pdf')]) {
      const report = await detect(write('paper.txt', Buffer.concat([junk, pdf])));
      expect(report).toMatchObject({ declared: 'txt', detected: 'pdf', match: false });
    }
  });

  it('binary bytes that only mention a PDF header are not a PDF', async () => {
    const bytes = Buffer.concat([
      Buffer.alloc(2048, 0xa7),
      Buffer.from('%PDF-1.4 is a header\n'),
      Buffer.alloc(64, 1),
    ]);
    expect((await detect(write('blob.bin', bytes))).detected).toBe('bin');
  });
});

/** A DOCX-shaped archive whose first part is a large stored picture, as some writers order it. */
async function docxWithLargeFirstPart(): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('<?xml version="1.0"?><Types/>'), '[Content_Types].xml');
  const noise = Buffer.alloc(200_000);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  zip.addBuffer(noise, 'docProps/thumbnail.jpeg', { compress: false });
  zip.addBuffer(Buffer.from('<w:document/>'), 'word/document.xml');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The bytes before a ZIP's central directory, as a download cut before its end leaves them. */
function withoutCentralDirectory(zip: Buffer): Buffer {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 5, 6]));
  return zip.subarray(0, zip.readUInt32LE(eocd + 16));
}

/** The same archive with its central directory overwritten, the end record kept. */
function centralDirectoryZeroed(zip: Buffer): Buffer {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 5, 6]));
  const copy = Buffer.from(zip);
  copy.fill(0, zip.readUInt32LE(eocd + 16), eocd);
  return copy;
}

describe('a DOCX without its central directory', () => {
  const corpus = join(process.env.HOME ?? '', '.cache', 'fileconv-corpus', 'files');
  const corpusDocx = existsSync(corpus)
    ? readdirSync(corpus, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.docx') && !f.startsWith('cut'))
        .slice(0, 3)
        .map((f) => join(corpus, f))
    : [];

  it('named .zip, is docx, weakly, from its local headers', async () => {
    const sources = [real('document.docx'), await docxWithLargeFirstPart()];
    for (const docx of sources) {
      for (const damaged of [withoutCentralDirectory(docx), centralDirectoryZeroed(docx)]) {
        const report = await detect(write('report.zip', damaged));
        expect(report).toMatchObject({ declared: 'zip', detected: 'docx', match: false, confidence: 0.4 });
      }
    }
  });

  it.skipIf(corpusDocx.length === 0)(
    'so is every corpus DOCX cut the same way (skipped: run npm run corpus)',
    async () => {
      for (const file of corpusDocx) {
        const report = await detect(write('cut.zip', withoutCentralDirectory(readFileSync(file))));
        expect(report.detected, file).toBe('docx');
      }
    },
  );

  it('a plain ZIP with its central directory zeroed stays zip', async () => {
    const report = await detect(write('a.zip', centralDirectoryZeroed(real('archive.zip'))));
    expect(report).toMatchObject({ detected: 'zip' });
  });
});

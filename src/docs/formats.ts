import { FAMILIES, FORMATS, type FormatDef } from '../formats/index.js';
import { DETECTED_BY_BINARY } from './detected-by/binary.js';
import { DETECTED_BY_DOCUMENTS } from './detected-by/documents.js';
import { DETECTED_BY_MEDIA } from './detected-by/media.js';

/** How detection recognises each format, in words for the table. */
const DETECTED_BY: Record<string, string> = {
  ...DETECTED_BY_DOCUMENTS,
  ...DETECTED_BY_MEDIA,
  ...DETECTED_BY_BINARY,
  pdf: 'signature `%PDF-`',
  pdfa: 'reported as `pdf` (a PDF/A file is a PDF); a declared `pdfa` matches a detected `pdf`',
  doc: 'OLE2 directory: `WordDocument` stream',
  docx: 'ZIP central directory: `[Content_Types].xml` and `word/`',
  odt: 'ZIP `mimetype` entry',
  rtf: 'signature `{\\rtf`',
  html: 'text: DOCTYPE html, `<html>` root, or an HTML element as root without an XML declaration',
  ps: 'signature `%!PS`',
  eps: 'signature `%!PS-Adobe-N.N EPSF-` (or the binary DOS EPS header)',
  txt: 'text that shows no other format’s traits',
  md: 'text traits: headings, fences, links, lists, front matter',
  rst: 'text traits: directives, title adornments, inline literals',
  tex: 'text traits: `\\documentclass`, `\\begin{document}`, `\\usepackage`',
  xls: 'OLE2 directory: `Workbook` or `Book` stream',
  xlsx: 'ZIP central directory: `[Content_Types].xml` and `xl/`',
  ods: 'ZIP `mimetype` entry',
  csv: 'text: two or more rows with the same number (2+) of comma- or semicolon-separated fields',
  tsv: 'text: two or more rows with the same number (2+) of tab-separated fields',
  ppt: 'OLE2 directory: `PowerPoint Document` stream',
  pptx: 'ZIP central directory: `[Content_Types].xml` and `ppt/`',
  odp: 'ZIP `mimetype` entry',
  svg: 'text: `<svg>` root element (after any XML declaration, comments, DOCTYPE)',
  ogg: 'signature `OggS` without an `OpusHead` first packet',
  opus: 'signature `OggS` with an `OpusHead` first packet',
  m4a: 'ISO BMFF `ftyp` major brand `M4A `',
  mp4: 'ISO BMFF `ftyp` with an MP4 brand',
  mov: 'ISO BMFF `ftyp` major brand `qt  `',
  webm: 'Matroska EBML DocType `webm`',
  mkv: 'Matroska EBML DocType `matroska`',
  heic: 'ISO BMFF `ftyp` brand `heic`/`mif1`',
  avif: 'ISO BMFF `ftyp` brand `avif`',
  json: 'text that parses as one JSON object or array',
  jsonl: 'text whose lines each parse as a JSON object or array (two or more)',
  yaml: 'text: mostly `key: value` / `- item` lines that parse as a YAML mapping',
  toml: 'text: `key = value` and `[table]` lines that parse as TOML',
  xml: 'text: an XML declaration or a closed root element that is none of the above',
  epub: 'ZIP `mimetype` entry `application/epub+zip`',
  mobi: 'PalmDB `BOOKMOBI` with MOBI header version below 8',
  azw3: 'PalmDB `BOOKMOBI` with MOBI header version 8 (KF8)',
  fb2: 'text: `<FictionBook>` root element',
  zip: 'ZIP central directory that names no format above',
  gz: 'signature `1F 8B`',
  tar: '`ustar` at offset 257',
  '7z': 'signature `7z BC AF 27 1C`',
  js: 'shebang (`node`), or JavaScript traits',
  ts: 'shebang (`deno`, `tsx`, `ts-node`), or JavaScript traits plus type annotations',
  py: 'shebang (`python`), or Python traits (`def`, `import`, `__main__`)',
  sh: 'shebang (`sh`, `bash`, ...), or shell traits (`fi`, `done`, `set -e`)',
  css: 'text traits: selectors, `property: value;`, at-rules',
  sql: 'text traits: `SELECT ... FROM`, `CREATE TABLE`, `INSERT INTO`',
  c: 'text traits: `#include`, preprocessor lines, `typedef`, C declarations; a `.c`/`.h` name on featureless text',
  cpp: 'C traits plus C++ ones (`std::`, `namespace`, `template`, access labels); agrees with a `.h` name',
  go: 'text traits: `package` clause, `import (`, `func`, `type ... struct`',
  rs: 'text traits: `fn`, `use std::`, `let mut`, `impl`, `#[derive]`, macros',
  java: 'text traits: `package ...;`, `import ...;`, `public class`, `System.out`, annotations',
  rb: 'shebang (`ruby`), or Ruby traits (`def` without a colon, `end`, `require`, blocks)',
  php: '`<?php` at the start, or PHP traits (`$this->`, `namespace`)',
  pl: 'shebang (`perl`), or Perl traits (`use strict`, `my $x`, `sub`)',
  lua: 'shebang (`lua`), or Lua traits (`local function`, `pairs(`, `~=`)',
  ini: 'two or more `[section]` headers over `key = value` lines',
  dockerfile: 'the file name (`Dockerfile`, `Containerfile`), or `FROM` with other instructions',
  makefile:
    'the file name (`Makefile`, `GNUmakefile`), shebang `make -f`, or make traits (`.PHONY`, `:=`, `$@`)',
  bin: 'anything else: bytes no detector recognises',
};

const cell = (s: string) => s.replace(/\|/g, '\\|');
const code = (items: string[]) => (items.length ? items.map((i) => `\`${i}\``).join(', ') : '');

function row(f: FormatDef): string {
  const how = DETECTED_BY[f.id] ?? 'magic signature';
  return `| \`${f.id}\` | ${cell(f.name)} | \`${f.mime}\` | ${code(f.extensions)} | ${code(f.aliases)} | ${cell(how)} |`;
}

/** docs/formats.md, generated from the format registry (src/formats/registry.ts). */
export function renderFormatsDoc(): string {
  const out: string[] = [
    '# Formats',
    '',
    '<!-- Generated from src/formats/registry.ts by src/docs/formats.ts (npm run docs); do not edit by hand. -->',
    '',
    `fileconv knows ${FORMATS.length} formats. Each has a canonical id (the lowercase usual extension),`,
    'the extensions and aliases that resolve to it (any case, with or without a leading dot), and a media type.',
    '',
  ];
  for (const family of FAMILIES) {
    const formats = FORMATS.filter((f) => f.family === family);
    if (formats.length === 0) continue;
    out.push(`## ${family[0]!.toUpperCase()}${family.slice(1)}`, '');
    out.push('| Id | Name | Media type | Extensions | Aliases | Detected by |', '|---|---|---|---|---|---|');
    out.push(...formats.map(row), '');
  }
  out.push(...DETECTION_NOTES);
  return `${out.join('\n').trimEnd()}\n`;
}

const DETECTION_NOTES = [
  '## Detection',
  '',
  '`fileconv detect` (and `POST /api/public/detect`) identifies a file from its bytes and returns',
  '`{declared, detected, match, mime, confidence}`, and `encrypted: true` for a password-protected',
  'document.',
  '',
  '- **Bounded reads.** Detection reads the first 64 KB, plus for ZIP files the end record (the last',
  '  64 KB at most) and the central directory (4 MB at most), and for OLE2 files a few directory and',
  '  FAT sectors. A 2 GB file costs the same as a small one.',
  '- **declared** is the explicit format when one is given, else the one the file name’s extension',
  '  names, else the one the Content-Type names. When none of these names a known format, `declared`',
  '  is the detected id and `match` is true: nothing contradicts the bytes.',
  '- **match** compares canonical ids after folding profiles into their base format, so a declared',
  '  `pdfa` matches a detected `pdf` and aliases (`jpeg`, `.yml`) match their canonical ids. A dialect',
  '  and its base language match too: C++ in a `.h` file, JavaScript in a `.ts` file.',
  '- **The name settles what the bytes only guess.** Where detection has only a guess between text',
  '  formats (plain text, or a prose or code format from a few traits), a declared source code or',
  '  prose format (`.py`, `.c`, `Makefile`, `.md`) is taken when the text is plausible for it, at no',
  '  more than 0.6 confidence: a short script with no Python traits is `py` when named `main.py`. A',
  '  declared XML, HTML, SVG, JSON or YAML name is taken only for text that could be one (it opens',
  '  with `<`, with `{` or `[`, or parses as a YAML mapping or list). A name never overrules a',
  '  signature, a container, markup or a parse: a `.py` name on a PNG is `png`, a page that opens',
  '  with `<script>` named `.js` is `html`, a ChangeLog named `.yaml` is `txt`, Markdown named `.xml`',
  '  is `md`.',
  '- **mime** is the media type of the detected format.',
  '- **confidence** (0 to 1) says how the answer was reached:',
  '',
  '  | Confidence | Evidence |',
  '  |---|---|',
  '  | 1.0 | an unambiguous signature (magic bytes) |',
  '  | 0.9 | a container was opened and its parts name the format (ZIP central directory, OLE2 directory) |',
  '  | 0.85 | text that parses completely as the format, or an explicit marker (root element, DOCTYPE, shebang) |',
  '  | 0.7 | text with the format’s clear structure (a table, a partial parse), or strong prose/code traits |',
  '  | 0.6 | a prose or code format guessed from a few traits |',
  '  | 0.5 | text with no format’s traits (`txt`), or a semicolon-separated table |',
  '  | 0.4 | a damaged container: a ZIP without its central directory, named from its first local headers; an encrypted OOXML package whose name does not say which of DOCX, XLSX and PPTX it is |',
  '  | 0.3 | a signature of a format fileconv does not handle (an executable, a RAR, another OLE2 file): `bin` |',
  '  | 0.1 | bytes nothing recognises: `bin` |',
  '  | 0 | an empty file: `bin` (an empty file is no format) |',
  '',
  '- Detection names the format, it does not validate the file: a truncated PNG is still `png`.',
  '- Damaged and padded files: a ZIP whose central directory is missing or overwritten is named from',
  '  its local headers, walked past the head (4 MB at most), so a cut DOCX is `docx` at 0.4; text',
  '  behind a run of NUL bytes within the head (a page in a preallocated file) is judged as text; a',
  '  PDF header within the first 1024 bytes counts on its own (0.9), one further in, behind binary',
  '  bytes, counts when numbered objects follow it and the tail ends the file as a PDF does (0.7).',
  '- Text is decoded as UTF-8, UTF-16 (with a BOM, or without one when every other byte is zero) or',
  '  Latin-1.',
  '- **encrypted** is present (`true`) when the document is password-protected: Word, Excel and',
  '  PowerPoint 97 files that flag their encryption (the FIB flag, a FILEPASS record, the',
  '  CurrentUserAtom token), ODF files whose manifest holds `encryption-data`, and DOCX, XLSX and',
  '  PPTX saved with a password. Those last are an OLE2 file holding `EncryptionInfo` and',
  '  `EncryptedPackage`, and which of the three it is lies inside the encryption: the declared',
  '  format is taken when it is one of them (0.9), else `docx` at 0.4. Convert them with the',
  '  option `password`.',
  '- **version** names a version that engines treat apart: `Word 6.0/95` (a FIB older than Word 97),',
  '  `Excel 2.x (BIFF2)` to `Excel 5.0/95 (BIFF5)`, `PowerPoint 4.0` (a `PP40` stream), `HWP 5.0`,',
  '  `encrypted OOXML`. LibreOffice opens Word 6.0/95 and BIFF2 to BIFF5, so they convert as any DOC',
  '  or XLS. A version no installed engine opens is refused when the conversion is planned, before',
  '  any engine runs: `UNSUPPORTED_CONVERSION` naming the version (a PowerPoint 4.0 file: LibreOffice',
  '  reads PowerPoint 97 and later), not `MALFORMED_DOCUMENT` from a failed engine. Each engine',
  '  declares the versions it cannot open on its steps (`unreadVersions`).',
];

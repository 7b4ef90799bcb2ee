import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import type { FormatId } from '../formats/index.js';
import { findBinary } from '../run/binary.js';
import { zipOutputs } from '../run/zip.js';
import { writeArchiveSeeds } from './archives.js';
import { psdFrom, writeOdp } from './containers.js';
import { writeMediaSeeds } from './media-seeds.js';
import { writePageSeeds } from './page-seeds.js';

const TEXT = 'fileconv self-test\nThe quick brown fox jumps over the lazy dog.\n';

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="120" viewBox="0 0 480 120">
<rect width="480" height="120" fill="#ffffff"/>
<rect x="8" y="8" width="40" height="40" fill="#3366cc"/>
<text x="64" y="80" font-family="sans-serif" font-size="56" fill="#000000">HELLO 2026</text>
</svg>
`;

const TEXT_FILES: Record<FormatId, string> = {
  txt: TEXT,
  md: '# Self-test\n\nSome *markdown* with a [link](https://example.org).\n\n- one\n- two\n',
  org: '#+TITLE: Self-test\n\n* Heading\n\nSome /org/ text.\n\n| name | qty |\n|------+-----|\n| apple | 3 |\n',
  html:
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Self-test</title></head>\n' +
    '<body><h1>Self-test</h1><p>The quick brown fox jumps over the lazy dog.</p>\n' +
    '<table><tr><th>name</th><th>qty</th></tr><tr><td>apple</td><td>3</td></tr></table></body></html>\n',
  csv: 'name,qty,price\napple,3,1.25\npear,5,0.80\n',
  // A list of records, so it can also become a table (csv, xlsx).
  json: '[\n  { "id": 1, "label": "one", "qty": 3 },\n  { "id": 2, "label": "two", "qty": 5 }\n]\n',
  svg: SVG,
  mediawiki:
    "= Self-test =\n\nThe '''quick''' brown fox jumps over the [[Lazy dog|lazy dog]].\n\n== List ==\n\n* one\n* two\n",
  textile:
    'h1. Self-test\n\nThe *quick* brown fox jumps over the "lazy dog":https://example.org.\n\n* one\n* two\n',
  roff:
    '.TH SELFTEST 1 "2026" "fileconv" "User Commands"\n.SH NAME\nselftest \\- fileconv self-test\n' +
    '.SH DESCRIPTION\nThe quick brown fox jumps over the\n.B lazy\ndog.\n',
  docbook:
    '<?xml version="1.0" encoding="UTF-8"?>\n<article xmlns="http://docbook.org/ns/docbook" version="5.0">\n' +
    '<title>Self-test</title>\n<para>The quick brown fox jumps over the lazy dog.</para>\n' +
    '<itemizedlist><listitem><para>one</para></listitem><listitem><para>two</para></listitem></itemizedlist>\n</article>\n',
  ipynb: `${JSON.stringify(
    {
      cells: [
        { cell_type: 'markdown', metadata: {}, source: ['# Self-test\n', '\n', 'The quick brown fox.'] },
        {
          cell_type: 'code',
          execution_count: 1,
          metadata: {},
          source: ['print("jumps over the lazy dog")'],
          outputs: [{ name: 'stdout', output_type: 'stream', text: ['jumps over the lazy dog\n'] }],
        },
      ],
      metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  )}\n`,
  // PostScript with real text, so a PDF made from it has a text layer (an SVG rendered to EPS
  // draws its letters as curves, which only OCR can read).
  ps: postscript('%!PS-Adobe-3.0'),
  eps: postscript('%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 400 100'),
};

/** A short program or configuration file of every source code format, each showing its language. */
const CODE_FILES: Record<FormatId, string> = {
  diff: 'diff --git a/src/app.c b/src/app.c\nindex 3b18e51..a9c2f4d 100644\n--- a/src/app.c\n+++ b/src/app.c\n@@ -1,4 +1,4 @@\n #include <stdio.h>\n int main(void) {\n-  printf("hello\\n");\n+  printf("hello, world\\n");\n   return 0;\n',
  cs: 'using System;\nusing System.Collections.Generic;\n\nnamespace Inventory\n{\n    public class Item\n    {\n        public string Name { get; set; }\n        public int Quantity { get; init; }\n    }\n\n    public static class Program\n    {\n        public static void Main(string[] args)\n        {\n            var items = new List<Item> { new Item { Name = "bolt", Quantity = 12 } };\n            foreach (var item in items) Console.WriteLine($"{item.Name}: {item.Quantity}");\n        }\n    }\n}\n',
  kt: 'package inventory\n\nimport kotlin.math.max\n\ndata class Item(val name: String, val quantity: Int)\n\nfun total(items: List<Item>): Int = items.sumOf { it.quantity }\n\nfun main() {\n    val items = listOf(Item("bolt", 12), Item("nut", 7))\n    println("total ${total(items)}, most ${max(12, 7)}")\n}\n',
  swift:
    'import Foundation\n\nstruct Item {\n    let name: String\n    var quantity: Int\n}\n\nfunc total(_ items: [Item]) -> Int {\n    return items.reduce(0) { $0 + $1.quantity }\n}\n\nlet items = [Item(name: "bolt", quantity: 12), Item(name: "nut", quantity: 7)]\nif let first = items.first {\n    print("first: \\(first.name), total: \\(total(items))")\n}\n',
  r: 'library(stats)\n\nsales <- data.frame(region = c("north", "south"), units = c(12, 7))\nsummarise <- function(df) {\n  total <- sum(df$units)\n  mean_units <- mean(df$units)\n  list(total = total, mean = mean_units)\n}\nprint(summarise(sales))\n',
  bat: '@echo off\nsetlocal\nrem Builds the project into the dist folder.\nset OUT=%~dp0dist\nif not exist "%OUT%" mkdir "%OUT%"\ncall npm run build\nif errorlevel 1 goto :fail\necho Built into %OUT%\ngoto :eof\n:fail\necho Build failed\nexit /b 1\n',
  ps1: 'param(\n    [string]$Environment = "staging",\n    [switch]$DryRun\n)\n\nfunction Get-Target {\n    param([string]$Name)\n    return "$env:DEPLOY_ROOT\\$Name"\n}\n\n$target = Get-Target -Name $Environment\nWrite-Host "Deploying to $target"\nif (-not $DryRun) {\n    Copy-Item -Path "$PSScriptRoot\\dist\\*" -Destination $target -Recurse\n}\n',
  hs: 'module Main where\n\nimport qualified Data.Map as Map\nimport Data.List (sortOn)\n\ntotal :: [Int] -> Int\ntotal = sum\n\nmain :: IO ()\nmain = do\n  let stock = Map.fromList [("bolt", 12), ("nut", 7)]\n  print (total (Map.elems stock))\n  mapM_ print (sortOn snd (Map.toList stock))\n',
  scss: '$primary: #3366cc;\n$radius: 4px;\n\n@mixin rounded($r: $radius) {\n  border-radius: $r;\n}\n\n.button {\n  @include rounded;\n  color: $primary;\n  &:hover { color: darken($primary, 10%); }\n  &--large { padding: #{$radius * 2}; }\n}\n',
  less: '@primary: #3366cc;\n@radius: 4px;\n\n.rounded(@r: @radius) {\n  border-radius: @r;\n}\n\n.button {\n  .rounded();\n  color: @primary;\n  &:hover { color: darken(@primary, 10%); }\n}\n',
  properties:
    '# Application settings\napp.name=Inventory service\napp.server.port=8080\napp.datasource.url=jdbc:postgresql://localhost/inventory\napp.datasource.username=inventory\nlogging.level.root=INFO\n',
  xsl: '<?xml version="1.0" encoding="UTF-8"?>\n<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">\n  <xsl:template match="/">\n    <html><body><xsl:value-of select="report/title"/></body></html>\n  </xsl:template>\n</xsl:stylesheet>\n',
  dtd: '<!ELEMENT note (to, from, body)>\n<!ELEMENT to (#PCDATA)>\n<!ELEMENT from (#PCDATA)>\n<!ELEMENT body (#PCDATA)>\n<!ATTLIST note date CDATA #IMPLIED>\n',
  c: '#include <stdio.h>\n\nint main(void) {\n  printf("fileconv self-test\\n");\n  return 0;\n}\n',
  cpp: '#include <iostream>\n\nint main() {\n  std::cout << "fileconv self-test" << std::endl;\n}\n',
  css: 'body {\n  color: #1a1a1a;\n  font-family: sans-serif;\n}\n',
  dockerfile: 'FROM debian:bookworm\nRUN apt-get update\nCMD ["echo", "fileconv self-test"]\n',
  go: 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("fileconv self-test")\n}\n',
  ini: '[self-test]\nname = fileconv\n\n[fox]\njumps = over the lazy dog\n',
  java: 'public class SelfTest {\n  public static void main(String[] args) {\n    System.out.println("fileconv self-test");\n  }\n}\n',
  js: "const name = 'fileconv';\nconsole.log(name + ' self-test');\n",
  lua: 'local function greet(name)\n  print(name .. " self-test")\nend\ngreet("fileconv")\n',
  makefile: '.PHONY: all\nall:\n\t@echo "fileconv self-test"\n',
  php: '<?php\n$name = "fileconv";\necho "$name self-test\\n";\n',
  pl: 'use strict;\nuse warnings;\nmy $name = "fileconv";\nprint "$name self-test\\n";\n',
  py: 'def main() -> None:\n    print("fileconv self-test")\n\n\nif __name__ == "__main__":\n    main()\n',
  rb: 'class SelfTest\n  def run\n    puts "fileconv self-test"\n  end\nend\nSelfTest.new.run\n',
  rs: 'fn main() {\n    let name = "fileconv";\n    println!("{} self-test", name);\n}\n',
  sh: '#!/bin/sh\nset -e\necho "fileconv self-test"\n',
  sql: "CREATE TABLE fruit (name TEXT, qty INTEGER);\nINSERT INTO fruit VALUES ('apple', 3);\nSELECT name FROM fruit;\n",
  ts: "const name: string = 'fileconv';\nconsole.log(name + ' self-test');\n",
};

function postscript(header: string): string {
  return `${header}\n/Helvetica findfont 24 scalefont setfont\n20 40 moveto (fileconv self-test) show\nshowpage\n`;
}

/**
 * A one-page PDF with a text layer, written by hand: objects, then an xref table whose offsets
 * are counted from the bytes written.
 */
export function tinyPdf(text = 'Hello from fileconv', picture = false): Buffer {
  // A 2 x 2 grey picture drawn inline: the seed's pictures taken out (pdf-zip) have one to give.
  const drawn = picture ? ' q 8 0 0 8 72 600 cm BI /W 2 /H 2 /CS /G /BPC 8 ID \x00\x80\x80\x00 EI Q' : '';
  const stream = `BT /F1 24 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET${drawn}`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

async function ffmpeg(args: string[]): Promise<void> {
  const bin = findBinary(['ffmpeg']);
  if (!bin) throw new Error('ffmpeg is not installed');
  await execa(bin, ['-hide_banner', '-loglevel', 'error', '-y', ...args], {
    timeout: 60_000,
    stdin: 'ignore',
  });
}

/** Whether `format` has a seed written as text (the seeds that need no engine to make). */
export function hasTextSeed(format: FormatId): boolean {
  return Object.hasOwn(TEXT_FILES, format) || Object.hasOwn(CODE_FILES, format);
}

/**
 * Seed files written directly: the roots every other sample is converted from. With `textOnly`,
 * the text and code seeds alone: a self-test of data pairs needs no video, archive or database.
 */
export async function writeSeeds(dir: string, textOnly = false): Promise<Map<FormatId, string>> {
  const seeds = new Map<FormatId, string>();
  for (const [id, text] of Object.entries({ ...TEXT_FILES, ...CODE_FILES })) {
    const path = join(dir, `seed.${id}`);
    await writeFile(path, text);
    seeds.set(id, path);
  }
  if (textOnly) return seeds;
  const pdf = join(dir, 'seed.pdf');
  await writeFile(pdf, tinyPdf(undefined, true));
  seeds.set('pdf', pdf);
  const png = join(dir, 'seed.png');
  // Rendered from the SVG seed, so OCR steps have words to read.
  await sharp(Buffer.from(SVG)).flatten({ background: '#ffffff' }).png().toFile(png);
  seeds.set('png', png);
  if (findBinary(['ffmpeg'])) {
    const wav = join(dir, 'seed.wav');
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', '-ac', '1', wav]);
    seeds.set('wav', wav);
    const mp4 = await testVideo(join(dir, 'seed.mp4'), [
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=1',
    ]);
    seeds.set('mp4', mp4);
    for (const [id, path] of await writeMediaSeeds(dir, ffmpeg)) seeds.set(id, path);
  }
  const htmlzip = join(dir, 'seed.htmlzip.zip');
  await zipOutputs([{ path: join(dir, 'seed.html'), name: 'index.html' }], htmlzip);
  seeds.set('htmlzip', htmlzip);
  const odp = join(dir, 'seed.odp');
  await writeOdp(odp);
  seeds.set('odp', odp);
  const psd = join(dir, 'seed.psd');
  await writeFile(psd, await psdFrom(png));
  seeds.set('psd', psd);
  for (const [id, path] of await writePageSeeds(dir, png, 'fileconv self-test')) seeds.set(id, path);
  for (const [id, path] of await writeArchiveSeeds(dir, TEXT)) seeds.set(id, path);
  const sqlite = join(dir, 'seed.sqlite');
  await writeDatabase(sqlite);
  seeds.set('sqlite', sqlite);
  return seeds;
}

/**
 * A SQLite database of two tables, so its conversions write a file (or a sheet) each; each table
 * has two columns, since a one-column CSV is plain text to anyone reading it.
 */
async function writeDatabase(path: string): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path);
  try {
    db.exec(`
      CREATE TABLE fruit (name TEXT, qty INTEGER, price REAL);
      INSERT INTO fruit VALUES ('apple', 3, 1.25), ('pear', 5, 0.8);
      CREATE TABLE note (id INTEGER, body TEXT);
      INSERT INTO note VALUES (1, 'The quick brown fox jumps over the lazy dog.'), (2, 'fileconv self-test');
    `);
  } finally {
    db.close();
  }
}

/**
 * ffmpeg's test pattern with the sound that `audioInput` (ffmpeg input arguments) gives, as long
 * as the shorter of the two.
 */
async function testVideo(mp4: string, audioInput: string[]): Promise<string> {
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', ...audioInput],
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', mp4],
  ]);
  return mp4;
}

/** The test video with `wav` as its sound: a tone says nothing to speech-to-text. */
export function muxSpeechVideo(dir: string, wav: string): Promise<string> {
  return testVideo(join(dir, 'seed-speech.mp4'), ['-i', wav]);
}

/** The read-only audio and video formats' samples written again with `wav` as their sound. */
export function speakingMediaSeeds(dir: string, wav: string): Promise<Map<FormatId, string>> {
  return writeMediaSeeds(dir, ffmpeg, ['-i', wav]);
}

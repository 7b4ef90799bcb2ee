import { describe, expect, it } from 'vitest';
import { decodeText, sniffText } from '../../src/detect/text/index.js';

const sniff = (text: string, complete = true) => sniffText(Buffer.from(text, 'utf8'), complete)?.id;

describe('text sniffing: hard cases', () => {
  it.each([
    ['a,b,c\n1,2,3\n4,5,6\n', 'csv'],
    ['a\tb\tc\n1\t2\t3\n', 'tsv'],
    ['"x, y",z\n"1\n2",3\n', 'csv'],
    ['Hello, world.\nNice day, really, is it not?\n', 'txt'],
    ['one line, with a comma\n', 'txt'],
    ['col one\tcol two\nvalue, with comma\tother\n', 'tsv'],
  ])('CSV vs TSV vs text: %j -> %s', (text, id) => {
    expect(sniff(text)).toBe(id);
  });

  it.each([
    ['name: app\nversion: 2\nitems:\n  - a\n  - b\n', 'yaml'],
    ['# Title\n\nSome prose here.\n\n- a\n- b\n', 'md'],
    ['# comment\nkey: value\nother: 1\n', 'yaml'],
    ['---\ntitle: Post\n---\n\nBody *text*.\n', 'md'],
    ['---\na: 1\n---\nb: 2\n', 'yaml'],
    ['Note: this is a sentence, not a mapping.\nAnother line of prose follows here.\n', 'txt'],
  ])('YAML vs Markdown: %j -> %s', (text, id) => {
    expect(sniff(text)).toBe(id);
  });

  it.each([
    ['{"a": 1}\n', 'json'],
    ['{\n  "a": [1, 2]\n}\n', 'json'],
    ['{"a": 1}\n{"a": 2}\n', 'jsonl'],
    ['[1]\n[2]\n[3]\n', 'jsonl'],
    ['[1, 2, 3]', 'json'],
  ])('JSON vs JSON Lines: %j -> %s', (text, id) => {
    expect(sniff(text)).toBe(id);
  });

  it('reads a JSON Lines head cut mid-record as JSON Lines', () => {
    expect(sniff('{"a": 1}\n{"a": 2}\n{"a": 3}\n{"a"', false)).toBe('jsonl');
  });

  it('reads a pretty-printed JSON head cut mid-document as JSON', () => {
    expect(sniff('{\n  "a": 1,\n  "b": [\n    1,\n', false)).toBe('json');
  });

  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg"/>', 'svg'],
    ['<?xml version="1.0"?>\n<!-- x -->\n<svg width="1"></svg>', 'svg'],
    ['<?xml version="1.0"?>\n<catalog><book/></catalog>', 'xml'],
    ['<catalog>\n<book/>\n</catalog>\n', 'xml'],
    ['<!doctype html>\n<title>x</title>', 'html'],
    ['<html><body>hi</body></html>', 'html'],
    ['<p>Just a paragraph</p>', 'html'],
    ['<?xml version="1.0"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"/>', 'html'],
    ['<?xml version="1.0"?>\n<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"/>', 'fb2'],
  ])('SVG vs XML vs HTML: %j -> %s', (text, id) => {
    expect(sniff(text)).toBe(id);
  });

  it.each([
    ['[server]\nhost = "x"\nport = 1\n', 'toml'],
    ['#!/bin/bash\necho hi\n', 'sh'],
    ['#!/usr/bin/env -S deno run\nconsole.log(1)\n', 'ts'],
    ['\\documentclass{article}\n\\begin{document}\nHi\n\\end{document}\n', 'tex'],
    ['Title\n=====\n\n.. code-block:: python\n\n   x = 1\n', 'rst'],
    ['SELECT id, name FROM users WHERE id = 1;\n', 'sql'],
    ['a { color: red; }\n.b {\n  margin: 0;\n}\n', 'css'],
    ['{\\rtf1\\ansi hello}', 'rtf'],
  ])('other text formats: %j -> %s', (text, id) => {
    expect(sniff(text)).toBe(id);
  });
});

describe('text sniffing: traps seen in real files', () => {
  it.each([
    ['[project]\nname = "x"\nclassifiers = [\n  "A :: B",\n  "C",\n]\n', 'toml'],
    ['LIBDIR="-L/usr/lib"\nLIBS="-lxml2"\nVERSION="2.9"\n', 'txt'],
    [
      'version,codename,release,eol,extra\n4.10,Warty,2004,2006\n5.04,Hoary,2005,2006,x\n6.06,Dapper,2006\n',
      'csv',
    ],
    ['Use this to select the lines you want from the buffer.\nThen press enter.\n', 'txt'],
    ['# API\n\nSee [docs](https://x.org).\n\n```js\nconst a = require("a");\nconsole.log(a);\n```\n', 'md'],
    ['!function(){"use strict";var a=function(b){return b};module.exports=a}();', 'js'],
    ['export declare function f(a: string): void;\nexport declare const b: Options;\n', 'ts'],
  ])('%j -> %s', (text, id) => {
    expect(sniff(text)).toBe(id);
  });

  it('does not read Python assignments in a partial head as TOML', () => {
    const py = 'import os\nx = 1\ny = 2\nz = os.path\n\ndef f(a):\n    b = a\n    return b\n\nw = 3\n';
    expect(sniff(py.repeat(3), false)).toBe('py');
  });
});

describe('text decoding', () => {
  it('decodes UTF-16 with and without a BOM, and UTF-8 with a BOM', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n1,2\n', 'utf16le')]);
    expect(decodeText(le, true)).toMatchObject({ encoding: 'utf-16le', text: 'a,b\n1,2\n' });
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hi there', 'utf16le').swap16()]);
    expect(decodeText(be, true)).toMatchObject({ encoding: 'utf-16be', text: 'hi there' });
    expect(decodeText(Buffer.from('plain words here', 'utf16le'), true)?.encoding).toBe('utf-16le');
    const bom8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]);
    expect(sniffText(bom8, true)?.id).toBe('json');
    expect(sniffText(le, true)?.id).toBe('csv');
  });

  it('keeps a head cut inside a multi-byte character as UTF-8', () => {
    const bytes = Buffer.from('café crème', 'utf8');
    expect(decodeText(bytes.subarray(0, 4), false)).toMatchObject({ encoding: 'utf-8', text: 'caf' });
  });

  it('falls back to Latin-1 for 8-bit text that is not UTF-8', () => {
    expect(decodeText(Buffer.from('café', 'latin1'), true)).toMatchObject({
      encoding: 'latin1',
      text: 'café',
    });
  });

  it('refuses bytes with NULs or many control characters', () => {
    expect(decodeText(Buffer.from([0x41, 0x00, 0x42, 0x43, 0x00, 0x00, 0x01]), true)).toBeUndefined();
    expect(decodeText(Buffer.from('\x01\x02\x03\x04abc'), true)).toBeUndefined();
  });
});

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFormatOf } from '../../src/core/source-format.js';
import { detect } from '../../src/detect/index.js';
import { sniffText } from '../../src/detect/text/index.js';
import { formatFromFilename } from '../../src/formats/index.js';
import { namedFileWriter } from './helpers.js';

// Source code is a format of its own: detected from the content where the content tells, and
// from the name where the content only agrees with it.

const write = namedFileWriter('fileconv-code-');

const sniff = (text: string) => sniffText(Buffer.from(text, 'utf8'), true)?.id;

describe('source code from its content', () => {
  it.each([
    ['#!/usr/bin/perl -w\nprint "hi\\n";\n', 'pl', 'a perl shebang'],
    ['#!/usr/bin/env ruby\nputs 1\n', 'rb', 'a ruby shebang'],
    ['#!/usr/bin/make -f\n%:\n\tdh $@\n', 'makefile', 'a debian/rules file runs make'],
    ['#!/usr/bin/env lua5.4\nprint(1)\n', 'lua', 'a lua shebang'],
    ['<?php\necho "hi";\n', 'php', 'the PHP open tag'],
    [
      '<?php\nnamespace App;\n?>\n<!DOCTYPE html>\n<html><body><?= $x ?></body></html>\n',
      'php',
      'a PHP page that prints HTML is PHP',
    ],
    [
      '<!DOCTYPE html>\n<html>\n<head><title>Search</title></head>\n<body>\n<?php\n$query = $_GET["q"];\nif ($query) {\n  echo htmlspecialchars($query);\n}\n?>\n</body>\n</html>\n',
      'php',
      'a PHP page that opens with its HTML and has PHP blocks further down',
    ],
    [
      '#include "Parser.hxx"\n\nParser::Parser(Input const &input)\n  : m_input(input)\n{\n}\n\nParser::~Parser()\n{\n  try {\n    close();\n  }\n  catch (const ParseException &) {\n  }\n}\n\nint Parser::version() const\n{\n  return m_version;\n}\n',
      'cpp',
      "C++: a class's code out of its header, constructor, destructor and catch, no std::",
    ],
    [
      'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tif err := run(); err != nil {\n\t\tfmt.Println(err)\n\t\tos.Exit(1)\n\t}\n}\n',
      'go',
      'Go: package clause, import block, func',
    ],
    [
      'use std::collections::HashMap;\n\n#[derive(Debug)]\nstruct Point { x: i32 }\n\nfn main() {\n    let mut m = HashMap::new();\n    m.insert(1, Point { x: 2 });\n    println!("{:?}", m);\n}\n',
      'rs',
      'Rust: use, derive, fn, let mut',
    ],
    [
      'package org.example.app;\n\nimport java.util.List;\n\npublic class App {\n    @Override\n    public String toString() { return "App"; }\n    public static void main(String[] args) {\n        System.out.println(new App());\n    }\n}\n',
      'java',
      'Java: package with a semicolon, imports, public class',
    ],
    [
      "require 'json'\n\nmodule Shop\n  class Cart < Base\n    attr_reader :items\n\n    def total\n      items.sum do |item|\n        item.price\n      end\n    end\n  end\nend\n",
      'rb',
      'Ruby: require, module, def without a colon, end',
    ],
    [
      'package Foo::Bar;\nuse strict;\nuse warnings;\n\nsub new {\n    my ($class, %args) = @_;\n    return bless {%args}, $class;\n}\n1;\n',
      'pl',
      'Perl: package with ::, use strict, sub, my',
    ],
    [
      'local M = {}\n\nlocal function helper(t)\n  for k, v in pairs(t) do\n    if v ~= nil then print(k) end\n  end\nend\n\nfunction M.run(t)\n  helper(t)\nend\n\nreturn M\n',
      'lua',
      'Lua: local function, pairs, ~=',
    ],
    [
      '#include <iostream>\n#include <vector>\n\nnamespace app {\ntemplate <typename T>\nclass Box {\npublic:\n  explicit Box(T v) : v_(v) {}\nprivate:\n  T v_;\n};\n}\n\nint main() { std::vector<int> v; std::cout << v.size(); }\n',
      'cpp',
      'C++: iostream, namespace, template, std::',
    ],
    [
      '#include <stdio.h>\n#include <stdlib.h>\n\nstatic int count(const char *s) {\n  int n = 0;\n  while (*s++) n++;\n  return n;\n}\n\nint main(int argc, char **argv) {\n  printf("%d\\n", count(argv[0]));\n  return 0;\n}\n',
      'c',
      'C: includes and functions',
    ],
    [
      '[Unit]\nDescription=Example\nAfter=network.target\n\n[Service]\nExecStart=/usr/bin/example\nRestart=on-failure\n\n[Install]\nWantedBy=multi-user.target\n',
      'ini',
      'an INI file of sections (a systemd unit)',
    ],
    [
      '; php.ini style\n[PHP]\nengine = On\nshort_open_tag = Off\n\n[Date]\ndate.timezone = UTC\n',
      'ini',
      'an INI file with ; comments',
    ],
    [
      'FROM node:20-slim AS build\nWORKDIR /app\nCOPY package.json .\nRUN npm ci\n\nFROM debian:12\nCOPY --from=build /app /app\nENTRYPOINT ["node", "/app/index.js"]\n',
      'dockerfile',
      'a multi-stage Dockerfile',
    ],
    [
      'CC ?= gcc\nCFLAGS += -O2\n\n.PHONY: all clean\n\nall: app\n\napp: main.o util.o\n\t$(CC) $(CFLAGS) -o $@ $^\n\n%.o: %.c\n\t$(CC) -c $< -o $@\n\nclean:\n\trm -f *.o app\n',
      'makefile',
      'a Makefile with rules and automatic variables',
    ],
  ])('%#: %s -> %s (%s)', (text, id) => {
    expect(sniff(text)).toBe(id);
  });

  it.each([
    [
      'The interface between the two parts is simple.\nEach side keeps its own state.\n',
      'txt',
      'a line of prose that starts with "interface" is no TypeScript',
    ],
    [
      'Changes\n\nSELECT the files to keep, then run the tool.\nFROM now on, the default is on.\n',
      'txt',
      'SQL and Dockerfile words in prose',
    ],
    [
      '[section one]\nThis section is prose about the program.\nIt has no keys at all.\n\n[section two]\nMore prose here.\n',
      'txt',
      'bracketed headings over prose are not INI',
    ],
    [
      '<!DOCTYPE html>\n<html><body>\n<p>A script starts with <code>&lt;?php</code>.</p>\n</body></html>\n',
      'html',
      'a page that shows the PHP tag escaped is a page',
    ],
    [
      '#include <stdio.h>\n\nstruct parser { int version; };\n\nint parser_version(const struct parser *p)\n{\n  return p->version;\n}\n',
      'c',
      'C with a struct and functions is no C++',
    ],
  ])('%#: prose stays prose, and neighbours stay apart: %s -> %s (%s)', (text, id) => {
    expect(sniff(text)).toBe(id);
  });
});

describe('the name decides where the content only agrees', () => {
  it.each([
    ['main.py', 'print("hello")\n', 'py', true],
    ['tiny.c', 'int x;\n', 'c', true],
    ['defs.h', '#define MAX 10\n', 'c', true],
    ['Data.pm', "# generated table\nreturn <<'END';\n0041\t005A\nEND\n", 'pl', true],
    ['Makefile', 'all:\n\techo hi\n', 'makefile', true],
    ['Dockerfile.dev', 'FROM scratch\n', 'dockerfile', true],
    ['settings.conf', 'timeout 30\nretries 3\n', 'ini', true],
  ])('%s is %s', async (name, text, id, match) => {
    const report = await detect(write(name, text));
    expect(report).toMatchObject({ declared: id, detected: id, match });
    expect(report.confidence).toBeLessThanOrEqual(0.6);
  });

  it.each([
    ['box.h', '#include <vector>\nnamespace a {\ntemplate <typename T> class B {};\n}\n', 'c', 'cpp'],
    ['util.hpp', '#include <stdio.h>\nint add(int a, int b);\n', 'cpp', 'c'],
    ['index.ts', "export const answer = 42;\nconsole.log('x');\n", 'ts', 'js'],
  ])('a dialect and its base agree: %s', async (name, text, declared, detected) => {
    const report = await detect(write(name, text));
    expect(report).toMatchObject({ declared, detected, match: true });
  });

  it('a .py name on a PNG does not make it Python', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const report = await detect(write('image.py', Buffer.concat([png, Buffer.alloc(64)])));
    expect(report).toMatchObject({ declared: 'py', detected: 'png', match: false });
  });

  it('a .py name on JSON does not make it Python', async () => {
    const report = await detect(write('data.py', '{"a": [1, 2, 3]}\n'));
    expect(report).toMatchObject({ declared: 'py', detected: 'json', match: false });
  });

  it('a .js name on a page that opens with a script element is HTML, converted as HTML', async () => {
    const report = await detect(
      write('page.js', '<script>var a = 1;</script>\n<div id="app"><p>Hello</p></div>\n'),
    );
    expect(report).toMatchObject({ declared: 'js', detected: 'html', match: false });
    expect(sourceFormatOf(report)).toBe('html');
  });

  it.each([
    ['/*!\n', '', '*/\n', 'a block of module docs'],
    ['', '//! ', '', 'a line comment on each line'],
  ])(
    'a Rust crate root whose first lines are Markdown docs in a comment is Rust (%#: %s)',
    async (open, each, close) => {
      // Headings, lists, code spans and links fill the first 4 KB, as in a crate's lib.rs.
      const docs = [
        '# Overview',
        '',
        'This crate offers **fast** routines:',
        '',
        '* `find` searches forward',
        '* `rfind` searches backward',
        '',
        ...Array.from({ length: 120 }, (_, i) => `Line ${i} of the [guide](https://example.org/guide).`),
      ];
      const code =
        'pub fn find(needle: u8, haystack: &[u8]) -> Option<usize> {\n    haystack.iter().position(|&b| b == needle)\n}\n';
      const text = `${open}${docs.map((l) => `${each}${l}`.trimEnd()).join('\n')}\n${close}${code}`;
      expect(sniff(text)).not.toBe('md');
      expect(sourceFormatOf(await detect(write('lib.rs', text)))).toBe('rs');
      // The same documentation on its own is Markdown.
      expect(sniff(`${docs.join('\n')}\n`)).toBe('md');
    },
  );

  it('without a name, short code stays plain text', async () => {
    const file = write('noname', 'print("hello")\n');
    expect((await detect(file, { declared: 'txt' })).detected).toBe('txt');
  });
});

describe('file names without an extension', () => {
  it.each([
    ['Dockerfile', 'dockerfile'],
    ['Containerfile', 'dockerfile'],
    ['Makefile', 'makefile'],
    ['GNUmakefile', 'makefile'],
    ['Makefile.in', 'makefile'],
    ['src/Makefile.am', 'makefile'],
    ['rules.mk', 'makefile'],
    ['Dockerfile.txt', 'txt'],
    ['README', undefined],
  ])('%s -> %s', (name, id) => {
    expect(formatFromFilename(name)?.id).toBe(id);
  });
});

/** Real files from installed packages, each class from more than one package. */
const REAL: Array<[string, string]> = [
  ['/usr/include/stdio.h', 'c'],
  ['/usr/include/zlib.h', 'c'],
  ['/usr/include/c++/12/bits/char_traits.h', 'cpp'],
  ['/usr/share/doc/git/contrib/persistent-https/main.go', 'go'],
  ['/usr/share/pandoc/data/sample.lua', 'lua'],
  ['/usr/share/pandoc/data/creole.lua', 'lua'],
  ['/usr/share/dpkg/buildflags.mk', 'makefile'],
  ['/usr/lib/postgresql/15/lib/pgxs/src/nls-global.mk', 'makefile'],
  ['/usr/share/perl5/Debconf/Log.pm', 'pl'],
];

describe('real files from installed packages', () => {
  for (const [file, id] of REAL) {
    it.skipIf(!existsSync(file))(`${file} -> ${id} (skipped when its package is not installed)`, async () => {
      expect((await detect(file)).detected).toBe(id);
    });
  }

  const pyDir = '/usr/lib/python3/dist-packages/yaml';
  it.skipIf(!existsSync(pyDir))(
    'every module of an installed Python package is py (skipped: no python3-yaml)',
    async () => {
      const files = readdirSync(pyDir).filter((f) => f.endsWith('.py'));
      for (const f of files) expect((await detect(join(pyDir, f))).detected, f).toBe('py');
    },
  );
});

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { printableCodeBlocks } from '../../converters/chromium/code-blocks.js';
import code from '../../converters/code.js';
import pandocChromium from '../../converters/pandoc-chromium.js';
import { findBinary } from '../../src/run/binary.js';
import { runStep, tempDir } from '../helpers/step.js';

const pandoc = findBinary(['pandoc']);
const chromium = findBinary(['chromium', 'chromium-browser', 'google-chrome']);
const pdftotext = findBinary(['pdftotext']);

const PYTHON = [
  'import sys',
  '',
  '',
  'def greet(name: str) -> str:',
  '    """Say hello <b>without</b> markup."""',
  '    return f"hello {name}"  # ```fenced``` in a comment',
  '',
  '',
  'if __name__ == "__main__":',
  '    print(greet(sys.argv[1]))',
  '',
].join('\n');

function source(name: string, text: string | Buffer): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

describe('code converter', () => {
  it('writes UTF-16 source as the same text in UTF-8', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('x = "é"\nprint(x)\n', 'utf16le')]);
    const { files } = await runStep(code, 'py', 'txt', source('a.py', utf16));
    expect(readFileSync(files[0]!, 'utf8')).toBe('x = "é"\nprint(x)\n');
  });

  it.skipIf(!pandoc)('renders a highlighted page that keeps every line, markup escaped', async () => {
    const { files } = await runStep(code, 'py', 'html', source('greet.py', PYTHON));
    const html = readFileSync(files[0]!, 'utf8');
    // pandoc's highlighter marks keywords and strings with classes; line numbers are anchors.
    expect(html).toMatch(/<span class="kw">def<\/span>/);
    expect(html).toMatch(/<span class="st">/);
    expect(html).toContain('&lt;b&gt;without&lt;/b&gt;');
    expect(html).toContain('```fenced```');
    expect(html).toContain('<title>Python</title>');
    expect(html.match(/id="cb1-\d+"/g)?.length).toBe(PYTHON.trimEnd().split('\n').length);
  });

  it.skipIf(!pandoc)('highlights a Makefile and a Dockerfile by their own grammars', async () => {
    const make = await runStep(code, 'makefile', 'html', source('Makefile', 'all: app\n\t$(CC) -o $@ $^\n'));
    expect(readFileSync(make.files[0]!, 'utf8')).toContain('class="sourceCode makefile');
    const docker = await runStep(
      code,
      'dockerfile',
      'html',
      source('Dockerfile', 'FROM debian:12\nRUN true\n'),
    );
    expect(readFileSync(docker.files[0]!, 'utf8')).toMatch(/<span class="kw">FROM<\/span>/);
  });

  it.skipIf(!pandoc)(
    'highlights C#, Kotlin, Swift, R, PowerShell, Haskell and a diff by their grammars',
    async () => {
      const documents = join(import.meta.dirname, '../fixtures/detect/documents');
      for (const [from, name, language, keyword] of [
        ['cs', 'Program.cs', 'cs', 'using'],
        ['kt', 'Main.kt', 'kotlin', 'fun'],
        ['swift', 'Inventory.swift', 'swift', 'struct'],
        ['r', 'analysis.R', 'r', 'function'],
        ['ps1', 'deploy.ps1', 'powershell', 'function'],
        ['hs', 'Main.hs', 'haskell', 'import'],
      ] as const) {
        const html = readFileSync(
          (await runStep(code, from, 'html', join(documents, name))).files[0]!,
          'utf8',
        );
        expect(html, from).toContain(`class="sourceCode ${language}`);
        expect(html, from).toMatch(new RegExp(`<span class="(kw|cf|im)">${keyword}</span>`));
      }
      const diff = readFileSync(
        (await runStep(code, 'diff', 'html', join(documents, 'fix.diff'))).files[0]!,
        'utf8',
      );
      // Removed and added lines are coloured apart.
      expect(diff).toMatch(/<span class="st">-/);
      expect(diff).toMatch(/<span class="va">\+/);
      // No grammar for batch files: numbered lines, no colours.
      const bat = readFileSync(
        (await runStep(code, 'bat', 'html', join(documents, 'build.bat'))).files[0]!,
        'utf8',
      );
      expect(bat).toMatch(/<span id="cb1-1">.*@echo off/);
      expect(bat).not.toMatch(/<span class="kw">/);
    },
  );

  it.skipIf(!pandoc || !chromium || !pdftotext)(
    'prints source code to a PDF whose text is the code, line by line',
    async () => {
      const { files } = await runStep(pandocChromium, 'py', 'pdf', source('greet.py', PYTHON));
      const { stdout } = await execa(pdftotext!, ['-layout', files[0]!, '-']);
      expect(stdout).toContain('def greet(name: str) -> str:');
      expect(stdout).toContain('print(greet(sys.argv[1]))');
      expect(stdout).toMatch(/^\s*1\s+import sys/m);
      const info = await execa(findBinary(['pdfinfo'])!, [files[0]!]);
      expect(info.stdout).toMatch(/^Tagged:\s+yes/m);
    },
    120_000,
  );

  it.skipIf(!pandoc)(
    "cuts a long block of pandoc's into runs that keep its lines, spans and numbering",
    async () => {
      // A heredoc open across the cuts: each line's spans still close on that line.
      const script = ['cat <<EOF', ...Array.from({ length: 398 }, (_, i) => `line ${i + 2} "quoted`), 'EOF'];
      const { files } = await runStep(code, 'sh', 'html', source('long.sh', `${script.join('\n')}\n`));
      const whole = readFileSync(files[0]!, 'utf8');
      const cut = printableCodeBlocks(whole, 150);
      const codes = [...cut.matchAll(/<code class="sourceCode bash" style="([^"]*)">([\s\S]*?)<\/code>/g)];
      expect(codes.map((c) => c[1])).toEqual([0, 150, 300].map((n) => `counter-reset: source-line ${n};`));
      expect(codes.map((c) => c[2]!.split('\n').length)).toEqual([150, 150, 100]);
      for (const [, , lines] of codes)
        for (const line of lines!.split('\n'))
          expect(line.match(/<span/g)?.length).toBe(line.match(/<\/span>/g)?.length);
      const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
      const block = (html: string) => /<body>([\s\S]*)<\/body>/.exec(html)![1]!;
      expect(text(block(cut))).toBe(text(block(whole)));
      expect(cut.match(/id="cb1"/g)).toHaveLength(1);
      // Every line keeps its id and number box, without its link to itself.
      expect(whole.match(/<a href="#cb1-\d+"><\/a>/g)).toHaveLength(400);
      expect(cut).not.toContain('<a href="#cb1-');
      expect(cut.match(/<span id="cb1-\d+"><a><\/a>/g)).toHaveLength(400);
      // A block within the limit is left as pandoc wrote it but for those links.
      expect(printableCodeBlocks(whole, 400)).toBe(whole.replace(/<a href="#cb1-\d+"><\/a>/g, '<a></a>'));
    },
  );

  it.skipIf(!pandoc || !chromium || !pdftotext)(
    'prints a 3,000-line script with its line numbers running on over the cut blocks',
    async () => {
      const script = Array.from({ length: 3000 }, (_, i) => `echo "line ${i + 1}"`).join('\n');
      const { files } = await runStep(pandocChromium, 'sh', 'pdf', source('long.sh', `${script}\n`));
      const { stdout } = await execa(pdftotext!, ['-layout', files[0]!, '-']);
      for (const n of [1, 150, 151, 1500, 3000])
        expect(stdout).toMatch(new RegExp(`^\\s*${n}\\s+echo "line ${n}"`, 'm'));
      // A line number on paper links nowhere: no link annotation per line. A listing this long
      // prints without a structure tree of one element per word.
      expect(readFileSync(files[0]!).includes('/Link')).toBe(false);
      const info = await execa(findBinary(['pdfinfo'])!, [files[0]!]);
      expect(info.stdout).toMatch(/^Tagged:\s+no/m);
    },
    180_000,
  );

  it.skipIf(!pandoc || !chromium || !pdftotext)(
    'prints minified code (one line of 60,000 characters) as wrapped plain text',
    async () => {
      const minified = `${Array.from({ length: 3000 }, (_, i) => `var v${i}=${i};`).join('')}\n`;
      const { files } = await runStep(pandocChromium, 'js', 'pdf', source('bundle.min.js', minified));
      const { stdout } = await execa(pdftotext!, [files[0]!, '-']);
      expect(stdout.replace(/\s+/g, '')).toContain('varv2999=2999;');
      const info = await execa(findBinary(['pdfinfo'])!, [files[0]!]);
      expect(Number(/Pages:\s+(\d+)/.exec(info.stdout)?.[1])).toBeGreaterThan(1);
    },
    120_000,
  );
});

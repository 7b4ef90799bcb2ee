import { describe, expect, it } from 'vitest';
import { sniffText } from '../../src/detect/text/index.js';
import { requiredLiteral } from '../../src/detect/text/literal.js';

describe('the run of characters every match of a pattern contains', () => {
  it.each([
    [/^\s*template\s*</m, 'template'],
    [/\\begin\{document\}/, '\\begin{document}'],
    [/if __name__ == ['"]__main__['"]/, 'if __name__ == '],
    [/^\s*if \[\[? /m, 'if ['],
    [/ab?cdef/, 'cdef'],
    [/^\s*select\b.*\bfrom\b.*;\s*$/im, 'select'],
    [/\bSELECT\b/, 'SELECT'],
    [/^package \w+(::\w+)+;/m, 'package '],
  ])('%s needs %j', (pattern, literal) => {
    expect(requiredLiteral(pattern)).toBe(literal);
  });

  it.each([
    // Alternation at the top level: no run is in every match.
    [/^import \($|^import "[\w./-]+"\s*$/m],
    // A quantifier's bounds are no characters of the text.
    [/^#{1,6} \S/m],
    [/^\s{0,3}[-*+] \S/m],
    // Escapes with a payload are not read.
    [/abc\x41def/],
    [/\u0041bcdef/],
    // Nothing of three characters or more outside groups and classes.
    [/\b(const|let|var)\s+[\w$]+\s*=/],
    [/ab*c/],
  ])('%s needs nothing it can tell', (pattern) => {
    expect(requiredLiteral(pattern)).toBeUndefined();
  });

  it('finds only runs that every match holds', () => {
    const texts = ['x := 1\nfunc main() {\n', 'SELECT a\nFROM t WHERE b;\n', 'template <typename T>\n'];
    for (const pattern of [
      /\w := /,
      /\bSELECT\b[\s\S]{1,300}?\bFROM\b/,
      /^\s*template\s*</m,
      /^func \w+\(/m,
    ]) {
      const literal = requiredLiteral(pattern)!;
      for (const text of texts) if (pattern.test(text)) expect(text).toContain(literal);
    }
  });
});

describe('scoring the first lines of a long text', () => {
  it('reads on when the first lines show no clear format', () => {
    // Prose for well past the first lines, then a Python program.
    const prose = 'This is a note about the program below, written as plain prose.\n'.repeat(120);
    const program =
      'import os\n\ndef main(argv):\n    return len(argv)\n\nclass Tool(object):\n    pass\n\n' +
      "if __name__ == '__main__':\n    main(os.sys.argv)\n";
    expect(sniffText(Buffer.from(prose + program), true)?.id).toBe('py');
  });

  it('a word list of one word a line stays plain text', () => {
    const words = Array.from({ length: 4000 }, (_, i) => `word${i.toString(36)}`).join('\n');
    expect(sniffText(Buffer.from(words), true)?.id).toBe('txt');
  });
});

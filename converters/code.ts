import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineConverter, edgesBetween } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';
import { CODE_FORMATS, codeAsMarkdown, codeTitle, sourceText } from './code/highlight.js';

/*
 * Source code is text with a language: to plain text it is the same characters in UTF-8; to HTML
 * it is one highlighted code block with line numbers (pandoc's highlighter, which knows every
 * language listed). PDF goes through the same page in pandoc-chromium.
 */
const EDGES = [
  ...edgesBetween(CODE_FORMATS, ['txt'], { family: 'text', lossy: false, cost: 1 }),
  ...edgesBetween(CODE_FORMATS, ['html'], { family: 'text', lossy: false, cost: 5 }),
];

export default defineConverter({
  name: 'code',
  description:
    'source code and configuration files: to plain text as UTF-8, to HTML as a highlighted code block with line numbers (pandoc, sandboxed)',
  packages: ['pandoc'],
  edges: EDGES,
  concurrency: 2,
  timeoutMs: 60_000,
  probe: () => probeBinary(['pandoc'], ['--version'], /pandoc (\d[\d.]*)/),
  async run({ edge, input, outDir }, ctx) {
    if (edge.to === 'txt') {
      const output = join(outDir, 'output.txt');
      await writeFile(output, await sourceText(input, edge.from));
      return { files: [output] };
    }
    const pandoc = findBinary(['pandoc']);
    if (!pandoc) throw new FileconvError('CONVERT_FAILED', 'pandoc is not installed.');
    const source = await codeAsMarkdown(input, edge.from, ctx.workDir);
    const output = join(outDir, 'output.html');
    const args = ['--sandbox', '-f', 'markdown', '-t', 'html5', '-s'];
    args.push('--metadata', `pagetitle=${codeTitle(edge.from)}`, '-o', output, '--', source);
    ctx.progress(0.1);
    try {
      await runProcess(pandoc, args, ctx);
    } catch (e) {
      if (e instanceof EngineProcessError)
        throw new FileconvError('CONVERT_FAILED', 'pandoc could not format the code.', { cause: e });
      throw e;
    }
    ctx.progress(1);
    return { files: [output] };
  },
});

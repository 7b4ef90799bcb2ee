/**
 * Long highlighted code blocks, cut into runs of lines before printing. pandoc writes a code block
 * as one `<pre>` holding a line box per line (`display: inline-block`, for the hanging indent of a
 * wrapped line), and Chromium's time to break such a block across pages grows much faster than its
 * length: an 11,000-line shell script took over a minute to print as one block, 13 s as blocks of
 * 150 lines. Cutting the HTML pandoc wrote (rather than the source) keeps its highlighting exact:
 * every line's spans open and close on that line, so a string or comment that runs over a cut is
 * coloured as in one block. The runs continue each other's line numbers and are drawn as one block.
 */

/** Lines per printed run: a few pages each. */
export const CODE_RUN_LINES = 150;

/** pandoc's HTML of one highlighted block: the div, the pre, the code with its attributes, the lines. */
const CODE_BLOCK =
  /<div class="sourceCode"([^>]*)><pre\s+class="([^"]*)"><code class="([^"]*)"((?:\s+style="[^"]*")?)>([\s\S]*?)<\/code><\/pre><\/div>/g;

/** CSS for the runs of a cut block: no gap or rounded corner where one run meets the next. */
export const CODE_RUN_STYLESHEET = `
div.sourceCode.run-continues pre { margin-bottom: 0; border-bottom-left-radius: 0; border-bottom-right-radius: 0; padding-bottom: 0; }
div.sourceCode.run-continued pre { margin-top: 0; border-top-left-radius: 0; border-top-right-radius: 0; padding-top: 0; }
div.sourceCode.run-continues { margin-bottom: 0; }
div.sourceCode.run-continued { margin-top: 0; }
`;

/** The HTML with every code block longer than `runLines` lines cut into runs of that many. */
export function cutLongCodeBlocks(html: string, runLines = CODE_RUN_LINES): string {
  return html.replace(
    CODE_BLOCK,
    (block, divAttrs: string, preClass: string, codeClass: string, style: string, body: string) => {
      const lines = body.split('\n');
      if (lines.length <= runLines) return block;
      // Line numbers count from the block's counter-reset (pandoc's startFrom), run after run.
      const first = Number(/counter-reset:\s*source-line\s+(-?\d+)/.exec(style)?.[1] ?? 0);
      const runs: string[] = [];
      for (let start = 0; start < lines.length; start += runLines) {
        const classes = [
          start > 0 ? 'run-continued' : '',
          start + runLines < lines.length ? 'run-continues' : '',
        ].filter(Boolean);
        // Only the first run keeps the block's id (an anchor may point at it).
        const attrs = start > 0 ? divAttrs.replace(/\s+id="[^"]*"/, '') : divAttrs;
        runs.push(
          `<div class="sourceCode ${classes.join(' ')}"${attrs}><pre class="${preClass}">` +
            `<code class="${codeClass}" style="counter-reset: source-line ${first + start};">` +
            `${lines.slice(start, start + runLines).join('\n')}</code></pre></div>`,
        );
      }
      return runs.join('\n');
    },
  );
}

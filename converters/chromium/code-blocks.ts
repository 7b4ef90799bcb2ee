/**
 * Highlighted code blocks made cheap to print. pandoc writes a code block as one `<pre>` holding a
 * line box per line (`display: inline-block`, for the hanging indent of a wrapped line), and
 * Chromium's time to break such a block across pages grows much faster than its length: an
 * 11,000-line shell script took over a minute to print as one block, 19 s as blocks of 150 lines.
 * Cutting the HTML pandoc wrote (rather than the source) keeps its highlighting exact: every
 * line's spans open and close on that line, so a string or comment that runs over a cut is
 * coloured as in one block. The runs continue each other's line numbers and are drawn as one block.
 *
 * Two more costs are pandoc's numbered lines: every line is a relatively positioned box (shifted
 * left by `left`, which Chromium paints as a layer of its own) and a link to itself, which the
 * printed PDF carries as one link annotation per line. The same script prints in 8 s, and its PDF
 * is 0.8 MB instead of 6 MB, with the lines shifted by margins (the same page, measured by
 * rendering it) and the self-links dropped (a line number on paper links nowhere).
 */

/**
 * A listing longer than this prints without a structure tree. Chromium tags every highlighted
 * word and numbered line as an element of its own, which says nothing a reader needs (a listing
 * reads in the order it is drawn) and costs most of the printing: an 11,000-line script took 17 s
 * with its 54,000 elements (a 7.7 MB PDF), 5 s without (0.8 MB).
 */
export const LONGEST_TAGGED_LISTING = 2_000;

/** Lines per printed run: a few pages each. */
export const CODE_RUN_LINES = 150;

/** pandoc's HTML of one highlighted block: the div, the pre, the code with its attributes, the lines. */
const CODE_BLOCK =
  /<div class="sourceCode"([^>]*)><pre\s+class="([^"]*)"><code class="([^"]*)"((?:\s+style="[^"]*")?)>([\s\S]*?)<\/code><\/pre><\/div>/g;

/**
 * CSS for printed code: numbered lines laid out by margins where pandoc's shift them by relative
 * position (the same place on the page), and no gap or rounded corner where one run of a cut block
 * meets the next. It comes after pandoc's own styles, whose selectors it repeats.
 */
export const CODE_RUN_STYLESHEET = `
pre.numberSource code > span { position: static; left: auto; margin-left: -4em; }
pre.numberSource code > span > a:first-child::before { position: static; left: auto; margin-left: -1em; margin-right: 1em; }
div.sourceCode.run-continues pre { margin-bottom: 0; border-bottom-left-radius: 0; border-bottom-right-radius: 0; padding-bottom: 0; }
div.sourceCode.run-continued pre { margin-top: 0; border-top-left-radius: 0; border-top-right-radius: 0; padding-top: 0; }
div.sourceCode.run-continues { margin-bottom: 0; }
div.sourceCode.run-continued { margin-top: 0; }
`;

/** A numbered line's link to itself, as pandoc writes it at the start of each line. */
const LINE_SELF_LINK = /(<span id="([^"]+)">)<a href="#\2"><\/a>/g;

/**
 * The HTML ready to print: numbered lines without their links to themselves, and every code block
 * longer than `runLines` lines cut into runs of that many.
 */
export function printableCodeBlocks(html: string, runLines = CODE_RUN_LINES): string {
  return html
    .replace(LINE_SELF_LINK, '$1<a></a>')
    .replace(
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

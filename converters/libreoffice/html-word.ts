import { readFile, writeFile } from 'node:fs/promises';

/**
 * A web page's CSS names a code font as a list for browsers (`Menlo, Monaco, Consolas,
 * monospace`), which Writer's HTML import keeps as one font name no system has, so a Word file
 * showed code in a proportional face; and a table drawn by CSS borders came out with none. The
 * copy Writer reads names one installed monospace font (Liberation Mono, metric-compatible with
 * Courier New, which Word users have) and gives tables without a border attribute thin rules.
 */
const MONO_LIST = /font-family\s*:\s*([^;}"]*(?:"[^"]*"[^;}"]*)*)\bmonospace\b\s*(!important)?/gi;
export const CODE_FONT = 'Liberation Mono';

export function wordFriendlyHtml(html: string): string {
  return html
    .replace(
      MONO_LIST,
      (_, _list, important) => `font-family: '${CODE_FONT}'${important ? ` ${important}` : ''}`,
    )
    .replace(
      /<table\b(?![^>]*\bborder\s*=)([^>]*)>/gi,
      '<table border="1" cellspacing="0" cellpadding="4"$1>',
    );
}

export async function writeWordFriendlyCopy(input: string, copy: string): Promise<void> {
  await writeFile(copy, wordFriendlyHtml(await readFile(input, 'utf8')));
}

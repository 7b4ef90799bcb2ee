/**
 * Characters that change how text around them is shown without being seen themselves: C0 and
 * C1 controls and DEL (terminal escapes, bells), bidirectional overrides, embeddings, isolates
 * and marks (U+202E makes `ctl\u202Egnp.exe.jpg` show as `ctl...gpj.exe.png`), zero-width and
 * other invisible format characters, and the line and paragraph separators. The zero-width
 * joiner and non-joiner stay: Persian, Indic scripts and emoji sequences need them to spell words.
 */
const HIDDEN = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** `text` without the hidden characters: for names we keep (uploads, URLs, archive entries, artifacts). */
export function withoutHiddenCharacters(text: string): string {
  return text.replace(HIDDEN, '');
}

/**
 * `text` as it may be shown back (an error quoting input, a timeline line, a log, a terminal):
 * every hidden character written as a visible `\u{...}` escape, so nothing it holds can act.
 */
export function shownText(text: string): string {
  return text.replace(HIDDEN, (ch) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

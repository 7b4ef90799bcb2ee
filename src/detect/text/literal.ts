/**
 * The longest run of characters every match of a pattern contains, read from its source at the
 * top level (outside groups and classes, not under a quantifier that allows fewer than one), or
 * undefined when the pattern has none of at least MIN_LITERAL characters or alternates at its top
 * level. A text without it cannot match, and looking for a string is far cheaper than running the
 * pattern over a whole head: the text sniffers test over a hundred patterns, most of them absent.
 * Case-insensitive patterns give their run in lower case.
 */
export function requiredLiteral(pattern: RegExp): string | undefined {
  if (pattern.flags.includes('u') || pattern.flags.includes('v')) return undefined;
  const src = pattern.source;
  let best = '';
  let run = '';
  const cut = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    let literal: string | undefined;
    let end = i;
    if (c === '\\') {
      const next = src[i + 1] ?? '';
      // Escaped punctuation stands for itself; letters are classes and assertions, digits back
      // references. Escapes with a payload (`\x41`, `\u{..}`, `\p{L}`, `\k<n>`, `\cJ`) are not read.
      if (/[xucpPk]/.test(next)) return undefined;
      if (/[^A-Za-z0-9]/.test(next)) literal = next;
      end = i + 1;
      while (/[0-9]/.test(next) && /[0-9]/.test(src[end + 1] ?? '')) end++;
    } else if (c === '{') {
      // A quantifier of the atom before, already accounted for when that atom was read.
      cut();
      end = src.indexOf('}', i);
      if (end < 0) return undefined;
    } else if (c === '(' || c === '[') {
      cut();
      end = closing(src, i);
      if (end < 0) return undefined;
    } else if (c === '|') {
      return undefined;
    } else if (!'^$.*+?{}'.includes(c)) {
      literal = c;
    } else {
      cut();
    }
    const quantifier = src[end + 1];
    // A quantifier that allows no occurrence drops the atom; `+` and `{n,}` (n >= 1) keep one,
    // but what follows need not come right after it.
    const optional = quantifier === '?' || quantifier === '*' || (quantifier === '{' && src[end + 2] === '0');
    const repeated = quantifier === '+' || (quantifier === '{' && !optional);
    if (literal !== undefined && !optional) run += literal;
    if (literal === undefined || optional || repeated) cut();
    i = end;
  }
  cut();
  if (best.length < MIN_LITERAL) return undefined;
  return pattern.flags.includes('i') ? best.toLowerCase() : best;
}

/** Shorter runs are in most texts, where looking first only adds a search. */
const MIN_LITERAL = 3;

/** The index of the `)` or `]` that closes the group or class opening at `at`, or -1. */
function closing(src: string, at: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = at; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
    } else if (inClass) {
      if (c === ']') {
        inClass = false;
        if (depth === 0) return i;
      }
    } else if (c === '[') {
      inClass = true;
    } else if (c === '(') {
      depth++;
    } else if (c === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

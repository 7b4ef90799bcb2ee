import { CONFIDENCE, type Finding } from '../types.js';

/** Elements that make a prolog-less fragment HTML rather than some XML vocabulary. */
const HTML_ELEMENTS = new Set([
  'html',
  'head',
  'body',
  'div',
  'p',
  'span',
  'a',
  'table',
  'ul',
  'ol',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'meta',
  'link',
  'script',
  'style',
  'title',
  'section',
  'article',
  'header',
  'footer',
  'nav',
  'main',
  'form',
  'img',
  'br',
  'pre',
  'blockquote',
  'iframe',
  'template',
]);

/**
 * Markup starting with `<`: the root element (after the XML declaration, comments, processing
 * instructions and DOCTYPE) names SVG, FictionBook or HTML; other roots are XML.
 */
export function sniffMarkup(text: string): Finding | undefined {
  let rest = text.trimStart();
  if (!rest.startsWith('<')) return undefined;
  let prolog = false;
  let doctype = '';
  for (let guard = 0; guard < 100; guard++) {
    if (rest.startsWith('<?')) {
      if (/^<\?xml\s/i.test(rest)) prolog = true;
      const end = rest.indexOf('?>');
      if (end < 0) return prolog ? { id: 'xml', confidence: CONFIDENCE.WEAK } : undefined;
      rest = rest.slice(end + 2).trimStart();
    } else if (rest.startsWith('<!--')) {
      const end = rest.indexOf('-->');
      if (end < 0) return undefined;
      rest = rest.slice(end + 3).trimStart();
    } else if (/^<!doctype\s/i.test(rest)) {
      doctype = /^<!doctype\s+([^\s>[]+)/i.exec(rest)?.[1]?.toLowerCase() ?? '';
      const end = endOfDoctype(rest);
      if (end < 0) break;
      rest = rest.slice(end + 1).trimStart();
    } else {
      break;
    }
  }
  if (doctype === 'html') return { id: 'html', confidence: CONFIDENCE.STRONG_TEXT };
  const root = /^<([A-Za-z_][\w.:-]*)[\s/>]/.exec(rest)?.[1];
  if (!root) return prolog ? { id: 'xml', confidence: CONFIDENCE.WEAK } : undefined;
  const local = (root.includes(':') ? root.slice(root.indexOf(':') + 1) : root).toLowerCase();
  if (local === 'svg' || doctype === 'svg') return { id: 'svg', confidence: CONFIDENCE.STRONG_TEXT };
  if (local === 'fictionbook') return { id: 'fb2', confidence: CONFIDENCE.STRONG_TEXT };
  if (local === 'html') return { id: 'html', confidence: CONFIDENCE.STRONG_TEXT };
  if (!prolog && HTML_ELEMENTS.has(local)) return { id: 'html', confidence: CONFIDENCE.TEXT };
  if (prolog || doctype || looksClosed(rest, root)) {
    return { id: 'xml', confidence: prolog ? CONFIDENCE.STRONG_TEXT : CONFIDENCE.TEXT };
  }
  return undefined;
}

/** A DOCTYPE may carry an internal subset in brackets with `>` inside. */
function endOfDoctype(s: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '[') depth++;
    else if (s[i] === ']') depth--;
    else if (s[i] === '>' && depth <= 0) return i;
  }
  return -1;
}

/** A prolog-less root counts as XML when its element is closed somewhere (or self-closed). */
function looksClosed(rest: string, root: string): boolean {
  return rest.includes(`</${root}>`) || /^<[^>]*\/>/.test(rest);
}

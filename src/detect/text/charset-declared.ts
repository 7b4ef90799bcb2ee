import type { FormatId } from '../../formats/index.js';
import { encodingName } from '../../formats/text.js';

// Apart from the statistical detector (encoding.ts loads chardet and its tables): detection reads
// declarations of every text it reports, and most text is UTF-8.

/** How far a declaration is looked for: a page's head may carry a long comment, style or script before its meta. */
const DECLARATION_BYTES = 64 * 1024;

const XML_DECLARATION = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']{1,40})["']/;
const META = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]{1,40})/gi;
const HEAD_END = /<\/head\s*>|<body[\s>]/i;
const CSS_CHARSET = /^@charset "([\w.:-]{1,40})";/;
/** PEP 263, Emacs and Vim: a comment in the first two lines that names the file's coding. */
const CODING_COOKIE = /^\s*(?:#|\/\/|\/\*|--|;|%|\.\.)[^\n]*?(?:coding[:=]|fileencoding=)\s*([\w.-]{1,40})/;

/**
 * The encoding a text's own declaration names, read from its ASCII bytes: an XML declaration, an
 * HTML meta anywhere in the head (not only in the first kilobyte the HTML standard's prescan
 * reads), a CSS `@charset`, a coding cookie in a script's first two lines. Undefined when there is
 * none, or its name is not an encoding; UTF-16 named by bytes that are not UTF-16 is no answer.
 */
export function declaredEncoding(bytes: Uint8Array, format: FormatId): string | undefined {
  const head = Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    Math.min(bytes.byteLength, DECLARATION_BYTES),
  ).toString('latin1');
  const name = declaredLabel(head, format);
  return name?.startsWith('utf-16') ? undefined : name;
}

/**
 * What the text's declaration names, UTF-16 included (which declaredEncoding leaves out for 8-bit
 * bytes): text handed on as UTF-8 must not keep a declaration of another encoding.
 */
export function declaredName(bytes: Uint8Array, format: FormatId): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, DECLARATION_BYTES));
  return declaredLabel(head.toString('latin1'), format);
}

function declaredLabel(head: string, format: FormatId): string | undefined {
  const label = declarationIn(head, format);
  return label ? encodingName(label) : undefined;
}

function declarationIn(head: string, format: FormatId): string | undefined {
  const xml = XML_DECLARATION.exec(head)?.[1];
  if (xml) return xml;
  if (format === 'html' || /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)\b/i.test(head)) {
    const end = HEAD_END.exec(head)?.index ?? head.length;
    for (const m of head.slice(0, end).matchAll(META)) if (m[1]) return m[1];
    return undefined;
  }
  if (format === 'css') return CSS_CHARSET.exec(head)?.[1];
  const [first = '', second = ''] = head.split('\n', 2);
  return CODING_COOKIE.exec(first)?.[1] ?? CODING_COOKIE.exec(second)?.[1];
}

/**
 * The text with its declaration saying UTF-8, for a text handed on in UTF-8: engines that honour
 * a declaration (LibreOffice's HTML import, XML parsers) would otherwise read it in the old one.
 */
export function declareUtf8(text: string, format: FormatId): string {
  const head = text.slice(0, DECLARATION_BYTES);
  const xml = XML_DECLARATION.exec(head);
  if (xml?.[1]) {
    if (encodingName(xml[1]) === 'utf-8') return text;
    return text.replace(XML_DECLARATION, (d) => d.replace(xml[1]!, 'UTF-8'));
  }
  if (format !== 'html') return text;
  const end = HEAD_END.exec(head)?.index ?? head.length;
  return text.slice(0, end).replace(META, (m, name: string) => m.replace(name, 'utf-8')) + text.slice(end);
}

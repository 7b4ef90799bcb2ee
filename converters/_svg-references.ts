import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Whether an SVG holds everything it draws, read as a browser reads it: the bytes decoded as
 * UTF-8 or UTF-16 (any other encoding, such as UTF-7, is refused: what we read must be what the
 * drawing engine reads), the XML parsed (character references decoded), and every attribute and
 * stylesheet read as CSS, escapes and comments included. A reference may only be `#id` or an
 * embedded PNG or JPEG `data:` picture.
 *
 * The CSS rule, in-house (no CSS tokenizer is a dependency): comments are removed, then every
 * escape is decoded (`\72` and `\000072 ` are `r`, `\(` is `(`, an escaped newline is nothing),
 * then the text is searched, lower-cased, for `url(`, which must hold a local reference, and for
 * `@import`, `src(`, `image(`, `image-set(`, `cross-fade(` and `element(`, which are refused
 * outright. Removing comments first can join two tokens a browser keeps apart (`u/ * * /rl(`):
 * such text is refused too, which only errs on the safe side.
 */

const DECLARED = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/i;
const ALLOWED_ENCODINGS = new Set(['utf-8', 'utf8', 'utf-16', 'utf-16le', 'utf-16be']);
/** Elements that run code or embed another document: a stamp is a static picture. */
const REFUSED_ELEMENTS = new Set(['script', 'foreignobject', 'iframe', 'object', 'embed']);
/** Attributes that name a resource, whatever their namespace prefix. */
const REFERENCE_ATTRIBUTES = new Set(['href', 'src', 'data']);
const CSS_REFUSED = /@import|\b(?:src|image|image-set|cross-fade|element)\(/;
const LOCAL_PICTURE = /^data:image\/(?:png|jpeg);base64,/i;
const SAME_DOCUMENT = /^#/;

const OUTSIDE =
  'is an SVG that refers to something outside itself (a file, a URL or a stylesheet); a stamp SVG must hold everything it draws';

/** The SVG's text, or why it cannot be read: a BOM or the first bytes say UTF-16, else UTF-8. */
export function decodeSvg(bytes: Buffer): { text: string } | { problem: string } {
  let encoding = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = 'utf-16be';
  else if (bytes[0] === 0x3c && bytes[1] === 0x00) encoding = 'utf-16le';
  else if (bytes[0] === 0x00 && bytes[1] === 0x3c) encoding = 'utf-16be';
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return { problem: `is an SVG that is not valid ${encoding.toUpperCase()} text` };
  }
  const declared = DECLARED.exec(text)?.[1];
  if (declared !== undefined && !ALLOWED_ENCODINGS.has(declared.trim().toLowerCase()))
    return {
      problem: `is an SVG in the encoding ${JSON.stringify(declared.slice(0, 40))}; a stamp SVG must be UTF-8 or UTF-16`,
    };
  return { text };
}

/** CSS as a browser's tokenizer sees it: comments gone, escapes decoded. */
export function unescapeCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, '')
    .replace(/\\(?:([0-9a-fA-F]{1,6})(?:\r\n|[ \t\n\r\f])?|(\r\n|[\n\r\f])|([\s\S]))/g, (_, hex, _nl, ch) => {
      if (hex === undefined) return ch ?? '';
      const code = Number.parseInt(hex, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
        ? '\uFFFD'
        : String.fromCodePoint(code);
    });
}

/** A URL as a browser resolves it: surrounding whitespace trimmed, tabs and newlines dropped. */
function isLocal(url: string): boolean {
  const u = url.replace(/[\t\n\r]/g, '').trim();
  return SAME_DOCUMENT.test(u) || LOCAL_PICTURE.test(u);
}

/** Whether a piece of CSS (a stylesheet, a style or presentation attribute) refers outside itself. */
export function cssRefersOutside(css: string): boolean {
  const text = unescapeCss(css).toLowerCase();
  if (CSS_REFUSED.test(text)) return true;
  for (const m of text.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))/g)) {
    if (!isLocal(m[1] ?? m[2] ?? m[3] ?? '')) return true;
  }
  return false;
}

type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  preserveOrder: true,
  processEntities: true,
  htmlEntities: true,
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  ignorePiTags: false,
  ignoreDeclaration: false,
  cdataPropName: '#cdata',
});

/** All the text under a node (a `<style>` element's stylesheet, CDATA included). */
function textOf(nodes: unknown): string {
  if (!Array.isArray(nodes)) return '';
  return nodes
    .map((n: XmlNode) =>
      typeof n['#text'] === 'string' ? n['#text'] : textOf(Object.values(n).find(Array.isArray)),
    )
    .join('');
}

function elementProblem(nodes: readonly XmlNode[]): string | undefined {
  for (const node of nodes) {
    const name = Object.keys(node).find((k) => k !== ':@');
    if (!name || name === '#text' || name === '#cdata') continue;
    if (name.startsWith('?') && name !== '?xml') return OUTSIDE;
    const local = (name.split(':').pop() ?? name).toLowerCase();
    if (REFUSED_ELEMENTS.has(local))
      return `is an SVG with a ${name} element; a stamp SVG is a picture, without scripts or embedded documents`;
    for (const [attribute, value] of Object.entries(node[':@'] ?? {})) {
      const attr = (attribute.split(':').pop() ?? attribute).toLowerCase();
      if (attribute.toLowerCase() === 'xml:base') return OUTSIDE;
      if (REFERENCE_ATTRIBUTES.has(attr) && !isLocal(value)) return OUTSIDE;
      // An animation can set any attribute, a reference included, to a value of its own.
      if (attr === 'attributename' && /href|src/i.test(value)) return OUTSIDE;
      if (cssRefersOutside(value)) return OUTSIDE;
    }
    const children = node[name];
    if (local === 'style' && cssRefersOutside(textOf(children))) return OUTSIDE;
    if (Array.isArray(children)) {
      const inner = elementProblem(children as XmlNode[]);
      if (inner) return inner;
    }
  }
  return undefined;
}

/**
 * Why an SVG may not be a stamp, or undefined when it holds everything it draws. No DOCTYPE (so
 * no entity, external or not) and no named entity but XML's five: a browser would not read one.
 */
export function svgStampProblem(bytes: Buffer): string | undefined {
  const decoded = decodeSvg(bytes);
  if ('problem' in decoded) return decoded.problem;
  const { text } = decoded;
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    return 'is an SVG with a DOCTYPE or entities; a stamp SVG must hold everything it draws';
  if (
    /&(?!(?:lt|gt|amp|apos|quot|#[0-9]+|#x[0-9a-fA-F]+);)/.test(text.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, ''))
  )
    return 'is an SVG with an undefined entity; a stamp SVG must be well-formed XML';
  if (XMLValidator.validate(text) !== true) return 'is an SVG that is not well-formed XML';
  return elementProblem(parser.parse(text) as XmlNode[]);
}

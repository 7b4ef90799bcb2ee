import { getFormat } from './index.js';
import type { FormatId } from './types.js';

/** Formats that are text underneath: their bytes are characters in some encoding. */
const TEXT_FAMILIES = new Set(['text', 'code']);
const TEXT_FORMATS = new Set(['html', 'svg', 'csv', 'tsv', 'json', 'jsonl', 'yaml', 'toml', 'xml', 'fb2']);

export const isTextFormat = (id: FormatId) =>
  TEXT_FORMATS.has(id) || TEXT_FAMILIES.has(getFormat(id)?.family ?? '');

/**
 * Names Windows and older tools write that the WHATWG Encoding Standard (and so TextDecoder)
 * does not list, to the encoding they mean.
 */
const ALIASES: Record<string, string> = {
  cp932: 'shift_jis',
  'ms-932': 'shift_jis',
  cp936: 'gbk',
  cp949: 'euc-kr',
  uhc: 'euc-kr',
  cp950: 'big5',
  'big5-hkscs': 'big5',
  cp20866: 'koi8-r',
  cp28595: 'iso-8859-5',
  cp65001: 'utf-8',
  utf8: 'utf-8',
};

/** The canonical name TextDecoder gives a label, through the aliases above; undefined for an unknown one. */
export function encodingName(label: string): string | undefined {
  const key = label.trim().toLowerCase();
  const windows = /^(?:cp|ms-?|x-cp)?(125\d)$/.exec(key);
  try {
    return new TextDecoder(windows ? `windows-${windows[1]}` : (ALIASES[key] ?? key)).encoding;
  } catch {
    return undefined;
  }
}

/**
 * An encoding a text source can be read in, as the `encoding` option names it: what TextDecoder
 * knows (its labels and the Windows names above) and UTF-32, which the door decodes itself.
 * Undefined for a name no decoder reads; TextDecoder's `replacement` (labels of encodings it
 * refuses to decode, like ISO-2022-KR) is no reading either.
 */
export function readableEncoding(label: string): string | undefined {
  const utf32 = /^utf-?32(le|be)$/i.exec(label.trim());
  if (utf32) return `UTF-32${utf32[1]!.toUpperCase()}`;
  const name = encodingName(label);
  return name === 'replacement' ? undefined : name;
}

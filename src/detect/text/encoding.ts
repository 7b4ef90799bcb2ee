import htmlEncodingSniffer from 'html-encoding-sniffer';
import type { FormatId } from '../../formats/index.js';
import { decodeUtf32 } from './utf32.js';

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const UTF32_BOMS = {
  'UTF-32LE': [0xff, 0xfe, 0, 0],
  'UTF-32BE': [0, 0, 0xfe, 0xff],
} as const;

/** The UTF-32 encoding a byte order mark names, checked before UTF-16's (FF FE starts both). */
function utf32Bom(bytes: Uint8Array): 'UTF-32LE' | 'UTF-32BE' | undefined {
  for (const [name, bom] of Object.entries(UTF32_BOMS) as ['UTF-32LE' | 'UTF-32BE', readonly number[]][])
    if (bom.every((b, i) => bytes[i] === b)) return name;
  return undefined;
}

/**
 * The encoding a text input is written in. pandoc and LibreOffice's text import read UTF-8, and
 * give empty or garbled output for anything else. A byte order mark decides (UTF-32, UTF-16,
 * UTF-8); then bytes that are valid UTF-8 are UTF-8 (a page labelled Latin-1 but saved as UTF-8 is
 * common, while Latin-1 text that happens to form valid UTF-8 sequences is not); then an HTML
 * page's `<meta charset>` (the HTML standard's prescan); then windows-1252, the standard's default
 * and a superset of Latin-1.
 */
export function sourceEncoding(bytes: Uint8Array, format: FormatId): string {
  const wide = utf32Bom(bytes);
  if (wide) return wide;
  const bom = htmlEncodingSniffer(bytes, { xml: true, defaultEncoding: '' });
  if (bom) return bom;
  if (isUtf8(bytes)) return 'UTF-8';
  return htmlEncodingSniffer(bytes, { xml: format !== 'html', defaultEncoding: 'windows-1252' });
}

/** The input as text without a byte order mark, and the encoding it was read as. */
export function decodeSource(bytes: Uint8Array, format: FormatId): { text: string; encoding: string } {
  const encoding = sourceEncoding(bytes, format);
  if (encoding === 'UTF-32LE' || encoding === 'UTF-32BE')
    return { text: decodeUtf32(bytes.subarray(4), encoding === 'UTF-32LE'), encoding };
  // TextDecoder drops a BOM of its own encoding.
  return { text: new TextDecoder(encoding).decode(bytes), encoding };
}

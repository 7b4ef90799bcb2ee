import htmlEncodingSniffer from 'html-encoding-sniffer';
import type { FormatId } from '../../src/formats/index.js';

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The encoding a text input is written in. pandoc reads UTF-8 only, and gives empty or garbled
 * output for anything else. A byte order mark decides; then bytes that are valid UTF-8 are UTF-8
 * (a page labelled Latin-1 but saved as UTF-8 is common, while Latin-1 text that happens to form
 * valid UTF-8 sequences is not); then an HTML page's `<meta charset>` (the HTML standard's
 * prescan); then windows-1252, the standard's default and a superset of Latin-1.
 */
export function sourceEncoding(bytes: Uint8Array, format: FormatId): string {
  const bom = htmlEncodingSniffer(bytes, { xml: true, defaultEncoding: '' });
  if (bom) return bom;
  if (isUtf8(bytes)) return 'UTF-8';
  return htmlEncodingSniffer(bytes, { xml: format !== 'html', defaultEncoding: 'windows-1252' });
}

/** The input as UTF-8 text without a byte order mark. */
export function decodeSource(bytes: Uint8Array, format: FormatId): { text: string; encoding: string } {
  const encoding = sourceEncoding(bytes, format);
  // TextDecoder drops a BOM of its own encoding.
  return { text: new TextDecoder(encoding).decode(bytes), encoding };
}

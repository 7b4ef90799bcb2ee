import { withoutHiddenCharacters } from './untrusted-text.js';

/** Name used when neither the response nor the URL gives a usable one. */
export const FALLBACK_FILENAME = 'download';

/** Longest file name kept, in UTF-8 bytes (file systems allow 255). */
const MAX_FILENAME_BYTES = 200;

/**
 * The file name a response names through Content-Disposition: `filename*` (RFC 5987/6266, takes
 * precedence) else `filename`. Returns undefined when the header has neither.
 */
export function filenameFromContentDisposition(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const params = parseParameters(header);
  const extended = params.get('filename*');
  if (extended !== undefined) {
    const decoded = decodeExtendedValue(extended);
    if (decoded) return decoded;
  }
  return params.get('filename') || undefined;
}

/** The last path segment of a URL, percent-decoded where that is valid. */
export function filenameFromUrl(url: URL): string | undefined {
  const segment = url.pathname.split('/').pop() ?? '';
  if (segment === '') return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Makes a name safe to create inside a folder and to show: no directory parts, no control,
 * bidirectional or invisible characters (untrusted-text.ts), no separators, no leading dots,
 * bounded length (keeping the extension), never empty: a name with nothing usable left becomes
 * `fallback`. Letters of every script stay (`résumé`, `報告`).
 */
export function sanitizeFilename(name: string | undefined, fallback = FALLBACK_FILENAME): string {
  if (!name) return fallback;
  const lastPart = name.split(/[/\\]/).pop() ?? '';
  const cleaned = withoutHiddenCharacters(lastPart.normalize('NFC').replace(/\s+/g, ' '))
    .replace(/[<>:"|?*]/g, '_')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  if (cleaned === '') return fallback;
  return truncateKeepingExtension(cleaned, MAX_FILENAME_BYTES, fallback);
}

function truncateKeepingExtension(name: string, maxBytes: number, fallback: string): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  let stem = name.slice(0, name.length - ext.length);
  // Drop whole code points so a multi-byte character is never cut in half.
  const chars = Array.from(stem);
  while (chars.length > 0 && Buffer.byteLength(chars.join('') + ext) > maxBytes) chars.pop();
  stem = chars.join('').trim();
  return stem === '' ? fallback : stem + ext;
}

/** `attachment; filename="a b.pdf"; filename*=UTF-8''a%20b.pdf` -> lower-cased names to values. */
function parseParameters(header: string): Map<string, string> {
  const params = new Map<string, string>();
  const re = /;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (const m of header.matchAll(re)) {
    const key = m[1]!.toLowerCase();
    let value = m[2]!.trim();
    if (value.startsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (!params.has(key)) params.set(key, value);
  }
  return params;
}

/** RFC 5987 `charset'language'percent-encoded`; UTF-8 and ISO-8859-1 are the charsets defined. */
function decodeExtendedValue(value: string): string | undefined {
  const m = /^([\w!#$%&+^`{}~-]*)'[^']*'(.*)$/.exec(value);
  if (!m) return undefined;
  const charset = m[1]!.toLowerCase();
  const bytes = percentDecodeToBytes(m[2]!);
  if (charset === 'utf-8' || charset === '') return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (charset === 'iso-8859-1') return new TextDecoder('latin1').decode(bytes);
  return undefined;
}

function percentDecodeToBytes(text: string): Uint8Array {
  const parts = text.match(/%[0-9a-f]{2}|[^%]+|%/gi) ?? [];
  const buffers = parts.map((p) =>
    /^%[0-9a-f]{2}$/i.test(p) ? Buffer.of(Number.parseInt(p.slice(1), 16)) : Buffer.from(p, 'utf8'),
  );
  return Buffer.concat(buffers);
}

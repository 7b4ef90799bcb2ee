// Apart from encoding.ts so that detection, which needs only this, does not load
// html-encoding-sniffer and its encoding tables (a measurable share of `fileconv detect`'s start-up).

/**
 * UTF-32 code units to text. TextDecoder does not know UTF-32, so code points are read by hand;
 * one outside Unicode becomes U+FFFD, a trailing partial unit is dropped.
 */
export function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  // Chunked: String.fromCodePoint takes its code points as arguments.
  for (let start = 0; start + 4 <= bytes.length; start += 4 * 8192) {
    const points: number[] = [];
    for (let at = start; at + 4 <= bytes.length && at < start + 4 * 8192; at += 4) {
      const cp = view.getUint32(at, littleEndian);
      points.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
    }
    parts.push(String.fromCodePoint(...points));
  }
  return parts.join('');
}

/**
 * UTF-32 without a byte order mark: text in the Basic Multilingual Plane leaves the two high
 * bytes of every code unit zero, and the low ones not both zero (that would be a NUL).
 */
export function guessUtf32(bytes: Uint8Array): 'UTF-32LE' | 'UTF-32BE' | undefined {
  const n = Math.min(bytes.length, 1024) & ~3;
  if (n < 8) return undefined;
  let le = 0;
  let be = 0;
  for (let i = 0; i < n; i += 4) {
    if (bytes[i + 2] === 0 && bytes[i + 3] === 0 && bytes[i] !== 0) le++;
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 3] !== 0) be++;
  }
  const units = n / 4;
  return le > units * 0.9 ? 'UTF-32LE' : be > units * 0.9 ? 'UTF-32BE' : undefined;
}

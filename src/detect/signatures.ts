import { CONFIDENCE, type Finding } from './types.js';

type Signature = [test: (head: Buffer) => boolean, id: string | ((head: Buffer) => string)];

const at = (head: Buffer, offset: number, ascii: string) =>
  head.length >= offset + ascii.length && head.toString('latin1', offset, offset + ascii.length) === ascii;
const bytes = (head: Buffer, ...values: number[]) => values.every((v, i) => head[i] === v);

/**
 * The common signatures that settle a format on their own. They are checked in-house before
 * file-type because file-type looks deeper than detection needs for these (it walks PNG chunks,
 * inflates gzip streams), which would cost most of the detection time.
 */
const SIGNATURES: Signature[] = [
  [(h) => at(h, 0, '%PDF-'), 'pdf'],
  [
    (h) => at(h, 0, '%!PS-Adobe-'),
    (h) => (/^%!PS-Adobe-\d\.\d EPSF-/.test(h.toString('latin1', 0, 40)) ? 'eps' : 'ps'),
  ],
  [(h) => bytes(h, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'png'],
  [(h) => bytes(h, 0xff, 0xd8, 0xff), 'jpg'],
  [(h) => at(h, 0, 'GIF87a') || at(h, 0, 'GIF89a'), 'gif'],
  [(h) => bytes(h, 0x1f, 0x8b, 0x08), 'gz'],
  [(h) => bytes(h, 0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c), '7z'],
  [(h) => at(h, 0, 'RIFF') && at(h, 8, 'WAVE'), 'wav'],
  [(h) => at(h, 0, 'RIFF') && at(h, 8, 'AVI '), 'avi'],
  [(h) => at(h, 0, 'RIFF') && at(h, 8, 'WEBP'), 'webp'],
  [(h) => at(h, 0, '8BPS'), 'psd'],
  [(h) => at(h, 0, 'fLaC'), 'flac'],
  // Opus and Vorbis share the Ogg container; the first packet names the codec.
  [(h) => at(h, 0, 'OggS'), (h) => (at(h, 28, 'OpusHead') ? 'opus' : 'ogg')],
  [(h) => at(h, 0, '{\\rtf'), 'rtf'],
  [(h) => at(h, 257, 'ustar'), 'tar'],
];

export function matchSignature(head: Buffer): Finding | undefined {
  for (const [test, id] of SIGNATURES) {
    if (test(head)) return { id: typeof id === 'string' ? id : id(head), confidence: CONFIDENCE.SIGNATURE };
  }
  return undefined;
}

/**
 * Whether the start of the head is plain text (no NULs or other control bytes), in which case
 * no binary signature can apply and the magic table is skipped.
 */
export function startsAsText(head: Buffer): boolean {
  const n = Math.min(head.length, 4096);
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) return false;
  }
  return n > 0;
}

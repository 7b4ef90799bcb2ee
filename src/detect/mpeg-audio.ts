import type { ByteSource } from './source.js';
import { CONFIDENCE, type Finding } from './types.js';

/**
 * MPEG audio (layers I, II, III) and ADTS AAC found by their frames, past what may precede the
 * first one: ID3v2 tags (several, as some taggers stack them), an APEv2 tag, or bytes a stream
 * recorder or a broken tagger left. A frame counts when the frames its header announces follow it
 * back to back, so a stray sync word in other bytes is not taken for audio.
 */

/** Kbit/s by [MPEG-1?][layer I, II, III][index 1..14]. */
const BITRATES = {
  v1: [
    [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  v2: [
    [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
};
/** Hz by version bits (0: MPEG 2.5, 2: MPEG-2, 3: MPEG-1) and rate index. */
const RATES: Record<number, number[]> = {
  0: [11025, 12000, 8000],
  2: [22050, 24000, 16000],
  3: [44100, 48000, 32000],
};
const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

interface Frame {
  /** `mp3` (layer III), `mp2` (layers I and II: the registry's MPEG audio row) or `aac` (ADTS). */
  id: 'mp3' | 'mp2' | 'aac';
  /** The header bits that stay the same from frame to frame. */
  kind: number;
  length: number;
}

export function frameAt(b: Buffer, i: number): Frame | undefined {
  if (i + 7 > b.length || b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) return undefined;
  const [b1, b2] = [b[i + 1]!, b[i + 2]!];
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  if (layer === 0) {
    // ADTS: MPEG-4/2 AAC, layer bits 0; profile 0-3, a known rate, a frame of at least its header.
    if ((b1 & 0xf6) !== 0xf0 || ((b2 >> 2) & 0xf) >= ADTS_RATES.length) return undefined;
    const length = ((b[i + 3]! & 3) << 11) | (b[i + 4]! << 3) | (b[i + 5]! >> 5);
    return length >= 7 ? { id: 'aac', kind: (b1 << 8) | (b2 & 0xfc), length } : undefined;
  }
  const index = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (version === 1 || index === 0 || index === 15 || rateIndex === 3) return undefined;
  const bitrate = BITRATES[version === 3 ? 'v1' : 'v2'][3 - layer]![index - 1]! * 1000;
  const rate = RATES[version]![rateIndex]!;
  const pad = (b2 >> 1) & 1;
  const length =
    layer === 3
      ? (Math.floor((12 * bitrate) / rate) + pad) * 4
      : Math.floor(((layer === 1 && version !== 3 ? 72 : 144) * bitrate) / rate) + pad;
  return { id: layer === 1 ? 'mp3' : 'mp2', kind: (b1 << 8) | (b2 & 0x0c), length };
}

/** Whether `count` frames of one kind follow each other from `i` (the buffer's end also counts). */
function chained(b: Buffer, i: number, count: number, complete: boolean): Frame | undefined {
  const first = frameAt(b, i);
  if (!first) return undefined;
  let at = i;
  for (let n = 0; n < count; n++) {
    const frame = frameAt(b, at);
    if (!frame || frame.kind !== first.kind) return undefined;
    at += frame.length;
    // A stream may end right after its second frame; one frame alone proves nothing.
    if (at === b.length && complete && n > 0) return first;
    if (at + 4 > b.length) return n > 0 ? first : undefined;
  }
  return first;
}

/** Where the audio starts past ID3v2 and APEv2 tags at `from`, or undefined if none is there. */
function pastTags(h: Buffer, from = 0): number {
  let i = from;
  for (;;) {
    if (h.toString('latin1', i, i + 3) === 'ID3' && i + 10 <= h.length) {
      const size =
        ((h[i + 6]! & 0x7f) << 21) |
        ((h[i + 7]! & 0x7f) << 14) |
        ((h[i + 8]! & 0x7f) << 7) |
        (h[i + 9]! & 0x7f);
      i += 10 + size + (h[i + 5]! & 0x10 ? 10 : 0);
    } else if (h.toString('latin1', i, i + 8) === 'APETAGEX' && i + 32 <= h.length) {
      // A header-first APEv2 tag: its size counts the items and the footer, not the header.
      i += 32 + h.readUInt32LE(i + 12);
    } else {
      return i;
    }
  }
}

/** Bytes read past the tags to find the first frame behind junk. */
const JUNK_WINDOW = 64 * 1024;

/**
 * The MPEG or ADTS audio a file holds. With `tagsOnly`, only a frame right after leading tags
 * counts (the file opens with ID3 or APE); otherwise the first frame within JUNK_WINDOW bytes of
 * their end, confirmed by four frames in a row.
 */
export async function mpegAudio(src: ByteSource, tagsOnly: boolean): Promise<Finding | undefined> {
  const start = pastTags(src.head);
  if (tagsOnly && start === 0) return undefined;
  const bytes =
    start + JUNK_WINDOW <= src.head.length ? src.head.subarray(start) : await src.read(start, JUNK_WINDOW);
  const complete = start + bytes.length >= src.size;
  const last = tagsOnly ? 0 : bytes.length - 4;
  for (let i = 0; i <= last; i++) {
    if (bytes[i] !== 0xff) continue;
    const frame = chained(bytes, i, tagsOnly ? 2 : 4, complete);
    if (frame) return { id: frame.id, confidence: i === 0 ? CONFIDENCE.SIGNATURE : CONFIDENCE.TEXT };
  }
  return undefined;
}

/**
 * Whether frames of MPEG audio start the head: file-type goes by the two sync bytes alone, which
 * other bytes share (a UTF-16 or UTF-32 byte order mark reads as a layer I header).
 */
export function framesAtStart(head: Buffer, complete: boolean): boolean {
  return chained(head, 0, 2, complete) !== undefined;
}

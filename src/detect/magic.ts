import { fileTypeFromBuffer } from 'file-type';
import { mediaContainer } from './media-containers.js';
import { framesAtStart } from './mpeg-audio.js';
import type { ByteSource } from './source.js';
import { CONFIDENCE, type Finding } from './types.js';

/** file-type's extension -> our canonical id, where they differ or several collapse into one. */
const FILE_TYPE_IDS: Record<string, string> = {
  apng: 'png',
  tif: 'tiff',
  oga: 'ogg',
  ogm: 'ogv',
  ogx: 'ogg',
  spx: 'ogg',
  m4v: 'mp4',
  f4v: 'mp4',
  m4b: 'm4a',
  f4a: 'm4a',
  aif: 'aiff',
  j2c: 'jp2',
  jpx: 'jp2',
  jpm: 'jp2',
  mts: 'm2ts',
  mp1: 'mp2',
};

/**
 * file-type's answers that are looser than the checks of binary/signatures.ts, which saw these
 * bytes first and did not take them: any `78 01` zlib stream is not a DMG, nor `ISc(` (an
 * InstallShield cabinet) a Microsoft Cabinet.
 */
const CHECKED_BEFORE = new Set(['dmg', 'cab']);
/** file-type's MPEG audio answers, taken only when the frames after the sync bytes agree. */
const MPEG_AUDIO = new Set(['mp1', 'mp2', 'mp3']);
const ID3 = Buffer.from('ID3');

/** Ids whose signature alone is not the whole story; the text sniffer decides these. */
const LEFT_TO_TEXT = new Set(['xml']);

/** Magic-signature detection over the head buffer, mapped into the format registry. */
export async function detectMagic(
  src: ByteSource,
  known: (id: string) => boolean,
): Promise<Finding | undefined> {
  const result = await fileTypeFromBuffer(src.head);
  if (!result) return tiffHeader(src.head);
  const id = FILE_TYPE_IDS[result.ext] ?? result.ext;
  if (LEFT_TO_TEXT.has(id)) return undefined;
  if (
    MPEG_AUDIO.has(result.ext) &&
    !src.head.subarray(0, 3).equals(ID3) &&
    !framesAtStart(src.head, src.complete)
  )
    return { id: 'bin', confidence: CONFIDENCE.FOREIGN };
  if (id === 'mobi')
    return { id: mobiVersion(src.head) === 8 ? 'azw3' : 'mobi', confidence: CONFIDENCE.SIGNATURE };
  const media = mediaContainer(id, result.mime, src.head);
  if (media) return { id: media, confidence: CONFIDENCE.SIGNATURE };
  if (known(id) && !CHECKED_BEFORE.has(id)) return { id, confidence: CONFIDENCE.SIGNATURE };
  // A signature of a format outside the registry (an executable, a RAR): known bytes, not ours.
  return { id: 'bin', confidence: CONFIDENCE.FOREIGN };
}

/**
 * The MOBI header's file version: 8 is a KF8 book (azw3), 6 and lower the older Mobipocket
 * format (which may carry a KF8 copy inside but opens everywhere as mobi).
 */
function mobiVersion(head: Buffer): number | undefined {
  if (head.length < 86) return undefined;
  const record0 = head.readUInt32BE(78);
  if (record0 + 40 > head.length || head.toString('latin1', record0 + 16, record0 + 20) !== 'MOBI')
    return undefined;
  return head.readUInt32BE(record0 + 36);
}

/**
 * A TIFF header whose first directory lies beyond the head (writers such as ImageMagick put it at
 * the end of the file), which file-type cannot follow from a bounded read. TIFF-based raw camera
 * formats have the same header, hence less than signature confidence.
 */
function tiffHeader(head: Buffer): Finding | undefined {
  const le = head[0] === 0x49 && head[1] === 0x49 && head[2] === 0x2a && head[3] === 0x00;
  const be = head[0] === 0x4d && head[1] === 0x4d && head[2] === 0x00 && head[3] === 0x2a;
  return le || be ? { id: 'tiff', confidence: CONFIDENCE.CONTAINER } : undefined;
}

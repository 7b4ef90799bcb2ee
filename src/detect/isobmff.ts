import type { ByteSource } from './source.js';

/** Boxes walked at one level at most: a real file has a handful; a damaged one may loop or run on. */
const MAX_BOXES = 512;
/** Tracks read at most (a file with more is not told apart by its first ones anyway). */
const MAX_TRACKS = 64;

interface Box {
  type: string;
  /** Where the box's payload starts and ends. */
  start: number;
  end: number;
}

/** The boxes between `from` and `to` (box headers only: a moov's sample tables are never read). */
async function boxes(src: ByteSource, from: number, to: number): Promise<Box[]> {
  const out: Box[] = [];
  let at = from;
  while (at + 8 <= to && out.length < MAX_BOXES) {
    const h = await src.read(at, 16);
    if (h.length < 8) break;
    let size = h.readUInt32BE(0);
    let header = 8;
    if (size === 1) {
      if (h.length < 16) break;
      size = Number(h.readBigUInt64BE(8));
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header) break;
    out.push({ type: h.toString('latin1', 4, 8), start: at + header, end: Math.min(at + size, to) });
    at += size;
  }
  return out;
}

async function child(src: ByteSource, parent: Box, type: string): Promise<Box | undefined> {
  return (await boxes(src, parent.start, parent.end)).find((b) => b.type === type);
}

/**
 * The handler types of an ISO-BMFF file's tracks (`vide`, `soun`, `text`, `hint`...), read from
 * each track's `mdia/hdlr` box; undefined when the file has no readable `moov` (cut before it, or
 * damaged). The moov may come after the media data, so top-level boxes are walked by their sizes.
 */
export async function trackHandlers(src: ByteSource): Promise<string[] | undefined> {
  const moov = (await boxes(src, 0, src.size)).find((b) => b.type === 'moov');
  if (!moov) return undefined;
  const handlers: string[] = [];
  const traks = (await boxes(src, moov.start, moov.end)).filter((b) => b.type === 'trak');
  for (const trak of traks.slice(0, MAX_TRACKS)) {
    const mdia = await child(src, trak, 'mdia');
    const hdlr = mdia && (await child(src, mdia, 'hdlr'));
    // hdlr: version and flags (4 bytes), pre_defined (4), then the handler type.
    const type = hdlr && (await src.read(hdlr.start + 8, 4));
    if (type?.length === 4) handlers.push(type.toString('latin1'));
  }
  return handlers;
}

/**
 * Whether an MP4 holds sound and no picture: an audio file whatever its brand (iTunes writes
 * `M4A `, but encoders and taggers write the generic `mp42` or `isom`, and file-type goes by the
 * brand alone). A file whose tracks cannot be read keeps its brand's reading.
 */
export async function isAudioOnlyMp4(src: ByteSource): Promise<boolean> {
  const handlers = await trackHandlers(src);
  return !!handlers?.includes('soun') && !handlers.includes('vide');
}

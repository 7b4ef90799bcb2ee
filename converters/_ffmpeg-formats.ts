import type { FormatId } from '../src/formats/index.js';

/**
 * Audio and video formats FFmpeg only reads here: each converts in one step to every audio format
 * FFmpeg writes here (video also to every video format and a GIF), never through a second lossy
 * encoding.
 * Each is read with the demuxer named below, never sniffed (see DEMUXER in ffmpeg.ts). AMR and
 * Monkey's Audio are left out though FFmpeg reads them: no Debian tool writes them, so the
 * self-test could not make a sample of either.
 */
export const READ_ONLY_AUDIO: Record<FormatId, string> = {
  aiff: 'aiff',
  au: 'au',
  wma: 'asf',
  wv: 'wv',
  // The AC-3 demuxer reads E-AC-3 too (one registry row holds both).
  ac3: 'ac3',
  dts: 'dts',
  mka: 'matroska',
  caf: 'caf',
  mp2: 'mp3',
  voc: 'voc',
  w64: 'w64',
};

export const READ_ONLY_VIDEO: Record<FormatId, string> = {
  wmv: 'asf',
  flv: 'flv',
  mpg: 'mpeg',
  m2ts: 'mpegts',
  '3gp': 'mov',
  '3g2': 'mov',
  ogv: 'ogg',
  rm: 'rm',
  mxf: 'mxf',
  dv: 'dv',
  y4m: 'yuv4mpegpipe',
  swf: 'swf',
};

import type { FormatRow } from '../types.js';

// Images beyond the web's, camera raw, audio and video containers beyond MP4 and Matroska, and
// subtitles (text underneath, kept here with the media they belong to).
/**
 * Images made to be opened in graphics tools (textures, scientific data, scanner and exchange
 * formats), not to be shared: the catalog writes them from pictures only, never a rendered page or
 * a video's frame in them.
 */
export const GRAPHICS_TOOL_IMAGES = ['tga', 'pcx', 'pnm', 'dds', 'hdr', 'xbm', 'xpm', 'sgi', 'fits', 'jp2'];

/** Timed captions and lyrics: they convert between each other and to plain text. */
export const SUBTITLE_FORMATS = ['srt', 'vtt', 'ass', 'sub', 'lrc', 'ttml', 'smi'];

/** Video formats whose specification has no sound at all: YUV4MPEG2 is raw frames. */
export const SOUNDLESS_VIDEO = ['y4m'];

export const MEDIA_ROWS: FormatRow[] = [
  // images
  ['jxl', 'JPEG XL image', 'image', 'image/jxl'],
  [
    'jp2',
    'JPEG 2000 image',
    'image',
    'image/jp2',
    ['jp2', 'jpf', 'jpx', 'j2k', 'j2c', 'jpc'],
    ['jpeg2000', 'j2k'],
  ],
  ['jxr', 'JPEG XR image', 'image', 'image/jxr', ['jxr', 'wdp', 'hdp']],
  ['tga', 'Truevision TGA image', 'image', 'image/x-tga', ['tga', 'icb', 'vda'], ['targa']],
  ['pcx', 'PCX image', 'image', 'image/x-pcx'],
  [
    'pnm',
    'Netpbm image',
    'image',
    'image/x-portable-anymap',
    ['pnm', 'ppm', 'pgm', 'pbm', 'pam'],
    ['ppm', 'pgm', 'pbm', 'netpbm'],
  ],
  ['xcf', 'GIMP image', 'image', 'image/x-xcf'],
  ['dds', 'DirectDraw Surface', 'image', 'image/vnd.ms-dds'],
  ['exr', 'OpenEXR image', 'image', 'image/x-exr'],
  ['hdr', 'Radiance HDR image', 'image', 'image/vnd.radiance', ['hdr', 'rgbe'], ['radiance']],
  ['xbm', 'X bitmap', 'image', 'image/x-xbitmap'],
  ['xpm', 'X pixmap', 'image', 'image/x-xpixmap'],
  ['sgi', 'SGI image', 'image', 'image/x-sgi', ['sgi', 'rgb', 'rgba', 'bw']],
  ['icns', 'Apple icon', 'image', 'image/icns'],
  ['cur', 'Windows cursor', 'image', 'image/x-win-bitmap'],
  ['qoi', 'QOI image', 'image', 'image/x-qoi'],
  ['emf', 'Windows enhanced metafile', 'image', 'image/emf', ['emf'], ['x-emf']],
  ['wmf', 'Windows metafile', 'image', 'image/wmf', ['wmf'], ['x-wmf']],
  ['fits', 'FITS image', 'image', 'image/fits', ['fits', 'fit', 'fts']],
  ['dcm', 'DICOM image', 'image', 'application/dicom', ['dcm', 'dicom'], ['dicom']],
  ['ktx', 'KTX texture', 'image', 'image/ktx', ['ktx', 'ktx2']],
  // camera raw
  ['rw2', 'Panasonic RW2 raw image', 'image', 'image/x-panasonic-rw2'],
  // audio
  ['aiff', 'AIFF audio', 'audio', 'audio/aiff', ['aiff', 'aif', 'aifc'], ['aif', 'aifc']],
  ['au', 'Sun/NeXT audio', 'audio', 'audio/basic', ['au', 'snd']],
  ['amr', 'AMR audio', 'audio', 'audio/amr'],
  ['wma', 'Windows Media audio', 'audio', 'audio/x-ms-wma'],
  ['mid', 'MIDI', 'audio', 'audio/midi', ['mid', 'midi', 'kar', 'rmi'], ['midi']],
  ['wv', 'WavPack audio', 'audio', 'audio/wavpack', ['wv'], ['wavpack']],
  ['ac3', 'Dolby Digital (AC-3) audio', 'audio', 'audio/ac3', ['ac3', 'eac3']],
  ['dts', 'DTS audio', 'audio', 'audio/vnd.dts'],
  ['mka', 'Matroska audio', 'audio', 'audio/x-matroska'],
  ['caf', 'Core Audio Format', 'audio', 'audio/x-caf'],
  ['mpc', 'Musepack audio', 'audio', 'audio/x-musepack', ['mpc', 'mpp', 'mp+']],
  ['mp2', 'MPEG-1 Layer II audio', 'audio', 'audio/mpeg', ['mp2', 'mpa']],
  ['voc', 'Creative Voice audio', 'audio', 'audio/x-voc'],
  ['w64', 'Sony Wave64 audio', 'audio', 'audio/x-w64'],
  ['dsf', 'DSD stream file', 'audio', 'audio/x-dsf', ['dsf', 'dff']],
  ['mod', 'ProTracker module', 'audio', 'audio/x-mod'],
  ['xm', 'FastTracker 2 module', 'audio', 'audio/x-xm'],
  ['s3m', 'Scream Tracker 3 module', 'audio', 'audio/x-s3m'],
  ['it', 'Impulse Tracker module', 'audio', 'audio/x-it'],
  // video
  ['wmv', 'Windows Media video', 'video', 'video/x-ms-wmv', ['wmv', 'asf'], ['asf']],
  ['flv', 'Flash video', 'video', 'video/x-flv'],
  [
    'mpg',
    'MPEG program stream video',
    'video',
    'video/mpeg',
    ['mpg', 'mpeg', 'mpe', 'vob', 'm2p'],
    ['mpeg', 'vob'],
  ],
  // `ts` and `mts` name TypeScript first: only m2ts and m2t resolve here.
  ['m2ts', 'MPEG transport stream video', 'video', 'video/mp2t', ['m2ts', 'm2t', 'mts', 'ts'], ['mpegts']],
  ['3gp', '3GPP video', 'video', 'video/3gpp'],
  ['3g2', '3GPP2 video', 'video', 'video/3gpp2'],
  ['ogv', 'Ogg video', 'video', 'video/ogg'],
  ['rm', 'RealMedia', 'video', 'application/vnd.rn-realmedia', ['rm', 'rmvb', 'ra'], ['realmedia']],
  ['mxf', 'MXF video', 'video', 'application/mxf'],
  ['dv', 'DV video', 'video', 'video/dv', ['dv', 'dif']],
  ['y4m', 'YUV4MPEG2 video', 'video', 'video/x-yuv4mpeg'],
  ['swf', 'Adobe Flash', 'video', 'application/x-shockwave-flash'],
  // subtitles
  ['srt', 'SubRip subtitles', 'text', 'application/x-subrip', ['srt'], ['subrip']],
  ['vtt', 'WebVTT subtitles', 'text', 'text/vtt', ['vtt'], ['webvtt']],
  ['ass', 'SubStation Alpha subtitles', 'text', 'text/x-ssa', ['ass', 'ssa'], ['ssa']],
  ['sub', 'MicroDVD subtitles', 'text', 'text/x-microdvd', ['sub'], ['microdvd']],
  ['lrc', 'LRC lyrics', 'text', 'application/x-lrc'],
  ['ttml', 'TTML subtitles', 'text', 'application/ttml+xml', ['ttml', 'dfxp'], ['dfxp']],
  ['smi', 'SAMI subtitles', 'text', 'application/x-sami', ['smi', 'sami'], ['sami']],
];

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { truncatedFixture } from './build.js';
import type { Canary, HostileCase } from './harness.js';

function hlsPlaylist(target: string): string {
  return `#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n${target}\n#EXT-X-ENDLIST\n`;
}

/** A real Matroska file (1 s of tone) carrying a subtitle track whose text is an HLS playlist. */
function mkvWithPlaylistSubtitle(c: Canary): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-hostile-make-'));
  try {
    const srt = join(dir, 'sub.srt');
    writeFileSync(srt, `1\n00:00:00,000 --> 00:00:01,000\n#EXTM3U\n${c.url}\nfile://${c.files.txt}\n\n`);
    const out = join(dir, 'sample.mkv');
    execFileSync(
      'ffmpeg',
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        'sine=duration=1',
        '-i',
        srt,
        '-c:a',
        'flac',
        '-c:s',
        'srt',
        out,
      ],
      { stdio: 'ignore', timeout: 60_000 },
    );
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** FFmpeg against playlists and lists that point at local files and URLs, and broken media. */
export const mediaCases: HostileCase[] = [
  {
    name: 'ffmpeg: HLS playlist with file:// secret named .mp4',
    attack: 'an m3u8 playlist uploaded as mp4, its segment the secret file (the classic ffmpeg SSRF/LFI)',
    from: 'mp4',
    to: 'mp3',
    make: (c) => hlsPlaylist(`file://${c.files.txt}`),
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ffmpeg: HLS playlist with canary URL named .mkv',
    attack: 'an m3u8 playlist uploaded as mkv, its segment on the canary listener',
    from: 'mkv',
    to: 'wav',
    make: (c) => hlsPlaylist(`${c.url}segment.ts`),
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ffmpeg: HLS playlist named .mp3',
    attack: 'an m3u8 playlist uploaded as mp3 pointing at the secret file and the canary',
    from: 'mp3',
    to: 'wav',
    make: (c) => hlsPlaylist(`${c.files.txt}`) + hlsPlaylist(`${c.url}a.ts`),
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ffmpeg: concat demuxer list named .avi',
    attack: 'an ffconcat script uploaded as avi listing the secret file and the canary URL',
    from: 'avi',
    to: 'mp4',
    make: (c) => `ffconcat version 1.0\nfile '${c.files.txt}'\nfile '${c.url}b.mp4'\n`,
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ffmpeg: RIFF AVI header followed by an HLS playlist',
    attack: 'an AVI-looking file whose body is a playlist (probing inside the container)',
    from: 'avi',
    to: 'mp3',
    make: (c) =>
      Buffer.concat([
        Buffer.from('RIFF\x00\x10\x00\x00AVI LIST', 'latin1'),
        Buffer.from(hlsPlaylist(`file://${c.files.txt}`)),
      ]),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ffmpeg: Matroska with a playlist-text subtitle track',
    attack: 'a real mkv carrying a subtitle whose text is an HLS playlist naming the secret and canary',
    from: 'mkv',
    to: 'mp4',
    make: mkvWithPlaylistSubtitle,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'ffmpeg: truncated MP4',
    attack: 'an MP4 cut after 300 bytes (moov missing)',
    from: 'mp4',
    to: 'webm',
    make: () => truncatedFixture('video.mp4', 300),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ffmpeg: garbage named .mp3',
    attack: 'random bytes uploaded as MP3',
    from: 'mp3',
    to: 'ogg',
    make: () => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
];

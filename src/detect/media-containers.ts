/**
 * Containers that hold either sound alone or pictures too, where the registry names the two apart:
 * ASF (wma / wmv) and Matroska (mka / mkv). file-type names the container; its streams decide.
 */
export function mediaContainer(ext: string, mime: string, head: Buffer): string | undefined {
  // file-type reads the first stream's properties object: audio/x-ms-asf when it is sound.
  if (ext === 'asf') return mime.startsWith('audio/') ? 'wma' : 'wmv';
  if (ext === 'mkv' && matroskaAudioOnly(head)) return 'mka';
  return undefined;
}

const TRACKS = Buffer.from([0x16, 0x54, 0xae, 0x6b]);

/**
 * A Matroska file whose track list, read within the head, has no video codec (`V_...`): each track
 * entry's CodecID element (0x86, then a one-byte size) names its kind by prefix, `A_` for sound.
 * A track list beyond the head says nothing, and the file stays mkv.
 */
function matroskaAudioOnly(head: Buffer): boolean {
  const tracks = head.indexOf(TRACKS);
  if (tracks < 0) return false;
  let audio = false;
  for (let i = head.indexOf(0x86, tracks); i >= 0 && i + 4 < head.length; i = head.indexOf(0x86, i + 1)) {
    const size = head[i + 1]! & 0x7f;
    if (!(head[i + 1]! & 0x80) || size < 3) continue;
    const kind = head.toString('latin1', i + 2, i + 4);
    if (kind === 'V_') return false;
    if (kind === 'A_') audio = true;
  }
  return audio;
}

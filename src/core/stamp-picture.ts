import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { FileconvError } from '../errors/index.js';

/**
 * The stamp picture of `stamp_image` (docs/operations.md) travels as a `data:` URL option. The
 * CLI's `--stamp-image`, the library's `stampImage` and the HTTP API's `stamp` part make it from a
 * file: the type is the one the file's name declares (the converter then checks the bytes are
 * that, as it checks an input against its name), or, for bytes with no name, the one they show.
 */

const BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.svg': 'image/svg+xml',
};

/** Bytes read for a stamp before the option's own limit (1 MiB) refuses them: a little over it. */
const READ_LIMIT = 1024 * 1024 + 1;

function typeOfBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return 'image/svg+xml';
}

/** The data: URL of a stamp picture given as a file name (or its declared name) and its bytes. */
export function stampPictureUrl(bytes: Uint8Array, name?: string): string {
  const type = name === undefined ? typeOfBytes(bytes) : BY_EXTENSION[extname(name).toLowerCase()];
  if (!type) throw new FileconvError('INVALID_REQUEST', 'A stamp picture is a .png, .jpg or .svg file.');
  if (bytes.length > READ_LIMIT - 1)
    throw new FileconvError('INVALID_REQUEST', `The stamp picture is over ${READ_LIMIT - 1} bytes.`);
  return `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** Options with the stamp picture, when one is given, as `stamp_image`. */
export async function withStampPicture(
  options: Record<string, unknown> | undefined,
  picture: string | Uint8Array | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (picture === undefined) return options;
  return { ...options, stamp_image: await readStampPictureUrl(picture) };
}

/** Reads a stamp picture from a path (or takes its bytes) into its data: URL. */
export async function readStampPictureUrl(input: string | Uint8Array): Promise<string> {
  if (typeof input !== 'string') return stampPictureUrl(input);
  const missing = () => {
    throw new FileconvError('FILE_NOT_FOUND', 'The stamp picture does not exist or cannot be read.');
  };
  // Its size first: a large file named as a stamp is refused without being read.
  const { size } = await stat(input).catch(missing);
  if (size >= READ_LIMIT)
    throw new FileconvError('INVALID_REQUEST', `The stamp picture is over ${READ_LIMIT - 1} bytes.`);
  return stampPictureUrl(await readFile(input).catch(missing), input);
}

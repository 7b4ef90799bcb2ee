import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';

/** A file to put in a zip: its path, and optionally the name it gets inside (default its base name). */
export type ZipEntry = string | { path: string; name?: string };

/** Zips several outputs (pages of a PDF as PNGs) into one file at `zipPath`. */
export async function zipOutputs(files: readonly ZipEntry[], zipPath: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const f of files) {
    const path = typeof f === 'string' ? f : f.path;
    const name = typeof f === 'string' ? basename(f) : (f.name ?? basename(f.path));
    zip.addFile(path, name);
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(zipPath));
}

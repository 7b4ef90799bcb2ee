import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';

/** One entry of an office container, read whole: the container is an engine's input, rewritten. */
export interface Entry {
  name: string;
  data: Buffer;
}

/** Every file entry of a zip container, in archive order. */
export function readEntries(path: string): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('not a zip'));
      const entries: Entry[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (d: Buffer) => chunks.push(d));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** Writes entries as a zip; ODF's `mimetype` first and stored, as ODF wants. */
export async function writeEntries(entries: Entry[], path: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const e of [...entries].sort((a, b) => Number(b.name === 'mimetype') - Number(a.name === 'mimetype')))
    zip.addBuffer(e.data, e.name, { compress: e.name !== 'mimetype' });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

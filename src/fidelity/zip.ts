import yauzl from 'yauzl';

/** Caps for reading an output's parts: outputs are ours, but a measure must never balloon. */
const MAX_ENTRY_BYTES = 32 * 1024 * 1024;
const MAX_TOTAL_BYTES = 128 * 1024 * 1024;

/** The names of every entry of a zip container, in archive order. */
export function zipNames(path: string): Promise<string[]> {
  return readZip(path, () => false).then((r) => r.names);
}

/** The entries whose name `want` accepts, as UTF-8 text, with every entry name. */
export function readZip(
  path: string,
  want: (name: string) => boolean,
): Promise<{ names: string[]; texts: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('not a zip'));
      const names: string[] = [];
      const texts = new Map<string, string>();
      let total = 0;
      zip.on('error', reject);
      zip.on('end', () => resolve({ names, texts }));
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        total += entry.uncompressedSize;
        if (!want(entry.fileName) || entry.uncompressedSize > MAX_ENTRY_BYTES || total > MAX_TOTAL_BYTES) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('unreadable zip entry'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            texts.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

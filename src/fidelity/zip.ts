import yauzl from 'yauzl';

/** Caps for reading an output's parts: outputs are ours, but a measure must never balloon. */
const MAX_ENTRY_BYTES = 32 * 1024 * 1024;
const MAX_TOTAL_BYTES = 128 * 1024 * 1024;

/** The names of every entry of a zip container, in archive order. */
export function zipNames(path: string): Promise<string[]> {
  return readZip(path, () => false).then((r) => r.names);
}

export interface ZipContents {
  /** Every entry's name, in archive order. */
  names: string[];
  /** Each entry's CRC-32 and size: equal for copies of one file, without reading them. */
  fingerprints: Map<string, string>;
  /** The entries asked for, as UTF-8 text. */
  texts: Map<string, string>;
}

/** The entries whose name `want` accepts, as UTF-8 text, with every entry's name and fingerprint. */
export function readZip(path: string, want: (name: string) => boolean): Promise<ZipContents> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('not a zip'));
      const names: string[] = [];
      const fingerprints = new Map<string, string>();
      const texts = new Map<string, string>();
      let total = 0;
      zip.on('error', reject);
      zip.on('end', () => resolve({ names, fingerprints, texts }));
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        fingerprints.set(entry.fileName, `${entry.crc32}:${entry.uncompressedSize}`);
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

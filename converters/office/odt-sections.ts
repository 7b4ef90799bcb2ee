import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';

/** An ODT's body parts that may hold sections. */
const BODY_PART = 'content.xml';
/** A section's tags (not `text:section-source`, which names a linked file and goes with its section). */
const SECTION_TAG = /<text:section(?=[\s>/])[^>]*?\/>|<text:section(?=[\s>])[^>]*>|<\/text:section\s*>/g;

interface Entry {
  name: string;
  data: Buffer;
}

function readEntries(path: string): Promise<Entry[]> {
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

/**
 * A copy of an ODT text document with its sections unwrapped, or undefined when it has none.
 * pandoc's ODT reader drops everything inside a `text:section` (a book's preamble, a licence, a
 * chapter kept in a section), while a section is only a frame for columns or protection around
 * ordinary paragraphs: without it, pandoc reads them like any other.
 */
export async function odtWithoutSections(input: string, workDir: string): Promise<string | undefined> {
  const entries = await readEntries(input).catch(() => undefined);
  const body = entries?.find((e) => e.name === BODY_PART);
  if (!entries || !body) return undefined;
  const xml = body.data.toString('utf8');
  if (xml.search(SECTION_TAG) < 0) return undefined;
  body.data = Buffer.from(xml.replace(SECTION_TAG, ''));
  const zip = new yazl.ZipFile();
  // ODF wants `mimetype` first and stored.
  for (const e of [...entries].sort((a, b) => Number(b.name === 'mimetype') - Number(a.name === 'mimetype')))
    zip.addBuffer(e.data, e.name, { compress: e.name !== 'mimetype' });
  zip.end();
  const copy = join(workDir, 'source.unsectioned.odt');
  await pipeline(zip.outputStream, createWriteStream(copy));
  return copy;
}

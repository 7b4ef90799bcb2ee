import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';

/**
 * Parts a worksheet's cells refer to. exceljs's stream reader resolves a cell's shared string or
 * style only when these were read before the sheet; a workbook that stores its sheets first
 * (LibreOffice and R's openxlsx do) makes it park the sheets and, now and then, hand back cells
 * whose text is "[object Object]" (exceljs issues 683 and 2915). Read in this order, it never has to.
 */
const FIRST = [/^xl\/workbook\.xml$/, /^xl\/_rels\//, /^xl\/sharedStrings\.xml$/i, /^xl\/styles\.xml$/];
const isSheet = (name: string) => /^xl\/worksheets\/[^/]+\.xml$/.test(name);
const rank = (name: string) => {
  const at = FIRST.findIndex((re) => re.test(name));
  return at >= 0 ? at : FIRST.length;
};

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, zip) =>
      err || !zip ? reject(err ?? new Error('not a zip')) : resolve(zip),
    ),
  );
}

function entriesOf(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      entries.push(e);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

/** Whether a sheet comes before a part it depends on, in archive order. */
export function needsReorder(names: readonly string[]): boolean {
  const firstSheet = names.findIndex(isSheet);
  if (firstSheet < 0) return false;
  return names.some((n, i) => i > firstSheet && rank(n) < FIRST.length);
}

/**
 * `path` itself when its parts already come in the order a stream reader needs; otherwise a copy
 * at `copyPath` with the workbook, its relationships, shared strings and styles first. Entries
 * are streamed through, so a large workbook is never held in memory.
 */
export async function inReadingOrder(path: string, copyPath: string): Promise<string> {
  const zip = await openZip(path);
  try {
    const entries = await entriesOf(zip);
    if (!needsReorder(entries.map((e) => e.fileName))) return path;
    const ordered = entries
      .map((entry, i) => ({ entry, i }))
      .sort((a, b) => rank(a.entry.fileName) - rank(b.entry.fileName) || a.i - b.i);
    const out = new yazl.ZipFile();
    const written = pipeline(out.outputStream, createWriteStream(copyPath));
    for (const { entry } of ordered) {
      if (entry.fileName.endsWith('/')) continue;
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(entry, (err, s) => (err || !s ? reject(err) : resolve(s))),
      );
      out.addReadStream(stream, entry.fileName, { mtime: entry.getLastModDate() });
    }
    out.end();
    await written;
    return copyPath;
  } finally {
    zip.close();
  }
}

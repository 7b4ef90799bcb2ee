import { createWriteStream } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { webPageEntry } from '../../src/detect/zip.js';
import { FileconvError } from '../../src/errors/index.js';

/** A page on local disk: the folder the browser may read from, and the page inside it. */
export interface Site {
  root: string;
  /** Path of the page relative to root, with forward slashes. */
  entry: string;
  /** Whether its PDF carries a structure tree (a tagged PDF, the default). */
  tagged?: boolean;
}

/** A ZIP of a web page may unpack to at most this many files and bytes (ZIP bombs). */
export const MAX_SITE_FILES = 5_000;
export const MAX_SITE_BYTES = 256 * 1024 * 1024;

/** A single HTML file is a site of one page: nothing beside it can be loaded. */
export async function singlePageSite(input: string, workDir: string): Promise<Site> {
  const root = join(workDir, 'site');
  await mkdir(root, { recursive: true });
  await copyFile(input, join(root, 'index.html'));
  return { root, entry: 'index.html' };
}

function malformed(message: string, cause?: unknown): FileconvError {
  return new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: cause ?? new Error(message) });
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    // yauzl refuses absolute names and names climbing out with `..` (strictFileNames off allows
    // backslashes, which it then treats as separators) and checks every entry's declared size.
    yauzl.open(path, { lazyEntries: true, validateEntrySizes: true }, (err, zip) =>
      err || !zip ? reject(malformed('not a zip', err)) : resolve(zip),
    );
  });
}

function isSymlink(entry: yauzl.Entry): boolean {
  return ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

/**
 * Unpacks a ZIP holding `index.html` and its assets (CSS, scripts, images, fonts) into
 * workDir/site. Links are skipped (a link could name any file), and the unpacked size and file
 * count are capped.
 */
export async function zippedSite(input: string, workDir: string): Promise<Site> {
  const root = join(workDir, 'site');
  await mkdir(root, { recursive: true });
  const zip = await openZip(input);
  const names: string[] = [];
  let bytes = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (e: Error) => reject(malformed('bad zip', e)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (name.endsWith('/') || isSymlink(entry)) return zip.readEntry();
        if (names.length >= MAX_SITE_FILES) {
          return reject(
            new FileconvError('CONVERT_FAILED', `The ZIP holds more than ${MAX_SITE_FILES} files.`),
          );
        }
        bytes += entry.uncompressedSize;
        if (bytes > MAX_SITE_BYTES) {
          return reject(
            new FileconvError('CONVERT_FAILED', `The ZIP unpacks to more than ${MAX_SITE_BYTES >> 20} MiB.`),
          );
        }
        names.push(name);
        const target = join(root, name);
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(malformed('bad entry', err));
          mkdir(dirname(target), { recursive: true })
            .then(() => pipeline(stream, createWriteStream(target, { flags: 'wx' })))
            .then(() => zip.readEntry(), reject);
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  const entry = webPageEntry(names);
  if (!entry) {
    throw new FileconvError(
      'CONVERT_FAILED',
      'The ZIP has no index.html at its top level (or in its one top folder) to render.',
    );
  }
  return { root, entry };
}

import { open, readFile, stat } from 'node:fs/promises';
import yauzl from 'yauzl';
import { isOle2, Ole2File } from './ole2.js';

/**
 * Cheap checks that tell a password-protected office file from a damaged one. LibreOffice run
 * headless only says "source file could not be loaded" for both, so the converter looks first.
 */

/** Compound files larger than this are not parsed for the check (they are read whole). */
const MAX_OLE2_BYTES = 256 * 1024 * 1024;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

async function head(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** True when the file is an encrypted OOXML, ODF, or Word/Excel/PowerPoint 97 document. */
export async function isPasswordProtected(path: string): Promise<boolean> {
  const start = await head(path, 8);
  if (start.subarray(0, 4).equals(ZIP_MAGIC)) return odfManifestIsEncrypted(path);
  if (start.length === 8 && isOle2(await head(path, 512))) {
    if ((await stat(path)).size > MAX_OLE2_BYTES) return false;
    try {
      return compoundFileIsEncrypted(new Ole2File(await readFile(path)));
    } catch {
      // A damaged container is the engine's to reject (MALFORMED_DOCUMENT), not a password case.
      return false;
    }
  }
  return false;
}

function compoundFileIsEncrypted(file: Ole2File): boolean {
  const names = new Set(file.entries.map((e) => e.name.toLowerCase()));
  // Encrypted OOXML is an OLE2 wrapper around the encrypted zip (MS-OFFCRYPTO).
  if (names.has('encryptioninfo') || names.has('encryptedpackage')) return true;
  if (names.has('encryptedsummary')) return true;
  // PowerPoint 97: the CurrentUserAtom's headerToken is 0xF3D1C4DF when the document is encrypted.
  const currentUser = file.stream('Current User');
  if (currentUser && currentUser.length >= 16 && currentUser.readUInt32LE(12) === 0xf3d1c4df) return true;
  const word = file.stream('WordDocument');
  // FIB base: flags at 0x0A, bit fEncrypted (0x0100).
  if (word && word.length >= 12 && (word.readUInt16LE(0x0a) & 0x0100) !== 0) return true;
  const workbook = file.stream('Workbook') ?? file.stream('Book');
  if (workbook && biffHasFilePass(workbook)) return true;
  return false;
}

/** Excel 97 workbooks announce encryption with a FILEPASS record in the globals substream. */
function biffHasFilePass(stream: Buffer): boolean {
  const FILEPASS = 0x002f;
  const EOF = 0x000a;
  for (let off = 0; off + 4 <= stream.length; ) {
    const type = stream.readUInt16LE(off);
    const size = stream.readUInt16LE(off + 2);
    if (type === FILEPASS) return true;
    if (type === EOF) return false;
    off += 4 + size;
  }
  return false;
}

/** ODF marks every encrypted part with manifest:encryption-data in META-INF/manifest.xml. */
function odfManifestIsEncrypted(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (openError, zip) => {
      if (openError || !zip) return resolve(false);
      let settled = false;
      const finish = (value: boolean) => {
        if (settled) return;
        settled = true;
        zip.close();
        resolve(value);
      };
      zip.on('error', () => finish(false));
      zip.on('end', () => finish(false));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== 'META-INF/manifest.xml') return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return finish(false);
          const chunks: Buffer[] = [];
          let length = 0;
          stream.on('data', (chunk: Buffer) => {
            length += chunk.length;
            // A manifest is a few kB; past this it is not one worth reading.
            if (length > 4 * 1024 * 1024) return stream.destroy();
            chunks.push(chunk);
          });
          stream.on('error', () => finish(false));
          stream.on('close', () => finish(false));
          stream.on('end', () => finish(Buffer.concat(chunks).toString('utf8').includes('encryption-data')));
        });
      });
      zip.readEntry();
    });
  });
}

import { readFile, stat } from 'node:fs/promises';
import { isOle2, Ole2File } from './ole2.js';

/** Compound files larger than this are not parsed (they are read whole). */
const MAX_OLE2_BYTES = 256 * 1024 * 1024;

/**
 * The FIB version (nFib) of a Word binary document: 101 to 105 for Word 6 and Word 95, 106 and up
 * for Word 97 and later. Undefined when the file is not a Word compound file.
 */
export async function wordFibVersion(path: string): Promise<number | undefined> {
  if ((await stat(path)).size > MAX_OLE2_BYTES) return undefined;
  const bytes = await readFile(path);
  if (!isOle2(bytes)) return undefined;
  try {
    const word = new Ole2File(bytes).stream('WordDocument');
    return word && word.length >= 4 ? word.readUInt16LE(2) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * LibreOffice's Word 97 import filter refuses a FIB outside 106 and up, and its Word 6 filter
 * reads 101 to 105 (Word 6 and Word 95): the filter must match the document's version.
 */
export function isWord6Or95(fib: number | undefined): boolean {
  return fib !== undefined && fib >= 0x65 && fib <= 0x69;
}

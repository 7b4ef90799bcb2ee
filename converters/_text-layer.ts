import { readFile } from 'node:fs/promises';
import { FileconvError } from '../src/errors/index.js';

/**
 * Refuses text read from pages that carry none (a scan, letters drawn as outlines): the answer is
 * NEEDS_OCR, which tells the user to ask again with `ocr: true`, rather than an empty file.
 */
export function assertTextFound(text: string): void {
  if (text.replace(/\s/g, '') === '') throw new FileconvError('NEEDS_OCR');
}

/** The same for a text file an engine wrote. */
export async function assertTextFileFound(file: string): Promise<void> {
  assertTextFound(await readFile(file, 'utf8'));
}

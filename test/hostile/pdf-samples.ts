import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary } from '../../src/run/binary.js';
import { encryptedPdf, textPdf } from '../converters/_image-samples.js';

/** Ghostscript makes the PDFs these tests send, and qpdf converts them (pdf-pdf). */
export const hasPdfTools = ['qpdf', 'gs'].every((tool) => findBinary([tool]));

/** A PDF of the given lines, and the same PDF locked with the password `secret`, made in `dir`. */
export async function samplePdfs(dir: string, lines: string[]): Promise<{ pdf: Buffer; locked: Buffer }> {
  const plain = await textPdf(dir, lines);
  return {
    pdf: readFileSync(plain),
    locked: readFileSync(await encryptedPdf(plain, join(dir, 'locked.pdf'))),
  };
}

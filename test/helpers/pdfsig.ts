import { spawnSync } from 'node:child_process';

/** poppler's pdfsig report of a PDF's signatures (NSS). */
export function pdfsig(pdf: string): string {
  // pdfsig exits 1 for a signature it cannot trust (a self-signed certificate); its report is what counts.
  return spawnSync('pdfsig', [pdf], { encoding: 'utf8' }).stdout;
}

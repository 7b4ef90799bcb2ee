import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePkcs12 } from '../helpers/pkcs12.js';
import { numberedPdf } from './build.js';
import type { HostileCase } from './harness.js';

/** A PKCS#12 identity for these cases, as the option's data: URL. */
function identityUrl(password: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-hostile-p12-'));
  try {
    return `data:application/x-pkcs12;base64,${readFileSync(makePkcs12(dir, 'Hostile case', password)).toString('base64')}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PASSWORD = 'hostile-sign';
const certificate = identityUrl(PASSWORD);
const signing = { sign_certificate: certificate, sign_password: PASSWORD };

/** The signer against PDFs whose form and pages are not what their specification allows. */
export const signingCases: HostileCase[] = [
  {
    name: 'pdf-sign: a form whose field tree loops',
    attack:
      'an AcroForm field whose /Kids names itself, which a walk for earlier signatures must not follow forever',
    from: 'pdf',
    to: 'pdf',
    engine: 'pdf-sign',
    options: signing,
    make: () =>
      numberedPdf([
        '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots 5 0 R >>',
        '<< /T (loop) /Kids [4 0 R] >>',
        '(not an array)',
      ]),
    // Not CONVERT_FAILED: a walk that loops ends at the time limit, and that is what this catches.
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'INVALID_REQUEST'] },
    timeoutMs: 30_000,
  },
  {
    name: 'pdf-sign: a page tree that loops, signed on a page',
    attack: 'a /Pages node whose /Kids names itself, with a visible signature asked on page 2',
    from: 'pdf',
    to: 'pdf',
    engine: 'pdf-sign',
    options: { ...signing, sign_page: 2 },
    make: () =>
      numberedPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>',
      ]),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INVALID_REQUEST'] },
    timeoutMs: 30_000,
  },
];

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

/**
 * A PDF with one signature field whose value is `signature` (a dictionary's body), after which
 * `patch` may rewrite the file's bytes (to aim byte ranges at offsets only known once it is built).
 */
function signedShape(signature: string, patch: (pdf: Buffer) => Buffer = (pdf) => pdf): Buffer {
  return patch(
    numberedPdf([
      '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>',
      '<< /FT /Sig /T (Signature1) /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /P 3 0 R /V 5 0 R >>',
      `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached ${signature} >>`,
    ]),
  );
}

/** Byte ranges written over the placeholder `[0 RANGE_B RANGE_C RANGE_D]` around the /Contents string. */
function aimRanges(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const open = text.indexOf('/Contents <') + '/Contents '.length;
  const close = text.indexOf('>', open) + 1;
  const ranges = `[0 ${open} ${close} ${pdf.length - close}]`.padEnd('[0 RANGE_B RANGE_C RANGE_D]'.length);
  return Buffer.from(text.replace('[0 RANGE_B RANGE_C RANGE_D]', ranges), 'latin1');
}

const reportCase = (name: string, attack: string, make: () => Buffer): HostileCase => ({
  name: `pdf-info: ${name}`,
  attack,
  from: 'pdf',
  to: 'json',
  engine: 'pdf-info',
  make,
  // A broken signature is a finding of the report, not a failure: the report says why it is not valid.
  allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  timeoutMs: 30_000,
});

/** The report's signature checks against signatures that are not what PAdES allows. */
export const reportCases: HostileCase[] = [
  reportCase('a signature field tree that loops', 'a signed field whose /Kids names itself', () =>
    numberedPdf([
      '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
      '<< /FT /Sig /T (loop) /Kids [4 0 R] /V << /ByteRange [0 1 2 3] /Contents <00> >> >>',
    ]),
  ),
  reportCase('a page tree that loops', 'a /Pages node whose /Kids names itself, counted for the report', () =>
    numberedPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] /Rotate 7 >>',
    ]),
  ),
  reportCase(
    'byte ranges outside the file',
    'a /ByteRange of huge and negative numbers, which a reader that slices the file by them must bound',
    () => signedShape('/ByteRange [0 2147483647 -5 2147483647] /Contents <3080>'),
  ),
  reportCase(
    'a CMS nested a hundred thousand deep',
    'byte ranges that fit, around a /Contents of 100,000 nested indefinite-length SEQUENCEs: a recursive DER parser overflows its stack',
    () =>
      signedShape(`/ByteRange [0 RANGE_B RANGE_C RANGE_D] /Contents <${'3080'.repeat(100_000)}>`, aimRanges),
  ),
  reportCase('a CMS of random bytes', 'byte ranges that fit, around 8 KB of bytes that are not DER', () =>
    signedShape(
      `/ByteRange [0 RANGE_B RANGE_C RANGE_D] /Contents <${Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 131 + 7) % 256)).toString('hex')}>`,
      aimRanges,
    ),
  ),
];

import { join } from 'node:path';
import { z } from 'zod';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { defineOption, int, like, OPERATION_ORDER, oneOf } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { convertersDir } from '../src/engine/package-files.js';
import { PASSWORD, password } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { assertPdfHeader } from './_pdf.js';
import { EDGE_POSITIONS } from './_pdf-stamp-image.js';
import { probeSignaturePython, runScript } from './_script-answer.js';

/**
 * A PDF signed with the key and certificate of a PKCS#12 file (`.p12`, `.pfx`): a PAdES B-B
 * signature (subfilter ETSI.CAdES.detached), invisible or drawn in a box on a page. The signature
 * covers the file as it is returned, so it is the last operation of a request; a file already
 * signed is refused (signing it again here rewrites it and would break the earlier signatures),
 * and encryption cannot be asked with it. converters/pdf-sign/sign_pdf.py does the work with
 * pikepdf (qpdf) and Python's cryptography and asn1crypto; it reads the certificate and its
 * password on standard input, never from a file or its command line.
 */

/** A certificate with its key: a few KB; a chain of ten is still far under this. */
const MAX_P12_BYTES = 64 * 1024;
const P12_URL = /^data:application\/(?:x-pkcs12|pkcs12|octet-stream);base64,([A-Za-z0-9+/]+={0,2})$/;

const SIGNED = { order: OPERATION_ORDER.sign };
const SECRET = { ...SIGNED, secret: true };

const CERTIFICATE = z
  .string({ error: 'must be a string' })
  .max(Math.ceil(MAX_P12_BYTES / 3) * 4 + 40, {
    error: `must be a PKCS#12 file of at most ${MAX_P12_BYTES} bytes`,
  })
  .regex(P12_URL, { error: 'must look like data:application/x-pkcs12;base64,... (a PKCS#12 file)' });

const OPTIONS = {
  password,
  sign_certificate: defineOption(
    CERTIFICATE,
    'sign the PDF (PAdES B-B) with the key and certificate of this PKCS#12 file, as a data: URL (HTTP: the part "certificate"; CLI: --sign-certificate FILE)',
    {
      ...SECRET,
      excludes: {
        user_password: 'a signature covers the file as returned; encrypting it afterwards would break it',
        split: 'a signature covers one whole file',
      },
    },
  ),
  sign_password: defineOption(PASSWORD, 'with sign_certificate: the password of the PKCS#12 file', SECRET),
  sign_reason: defineOption(
    like(/^[^\0\r\n]{1,200}$/, 'Approved'),
    'with sign_certificate: the reason given in the signature',
    SIGNED,
  ),
  sign_location: defineOption(
    like(/^[^\0\r\n]{1,200}$/, 'London'),
    'with sign_certificate: the place given in the signature',
    SIGNED,
  ),
  sign_page: defineOption(
    int(1, 1_000_000),
    'with sign_certificate: draw the signature in a box on this page (default: invisible)',
    SIGNED,
  ),
  sign_position: defineOption(
    oneOf(['center', ...EDGE_POSITIONS]),
    'with sign_page: where the box is drawn (default bottom-right)',
    SIGNED,
  ),
};

const edges: ConversionEdge[] = [
  {
    from: 'pdf',
    to: 'pdf',
    family: 'document',
    lossy: false,
    cost: 5,
    skipWhen: (o) => o.sign_certificate === undefined,
  },
];

const script = () => convertersDir('pdf-sign', 'sign_pdf.py');
interface Signed {
  signer: string;
  pages: number;
  visible_on: number | null;
  certificate_expired: boolean;
  certificate_valid_until: string;
}

export default defineConverter({
  name: 'pdf-sign',
  description:
    'pikepdf and Python cryptography: PDFs signed with a PKCS#12 certificate (PAdES B-B), invisible or in a box on a page',
  packages: ['python3-pikepdf', 'python3-cryptography', 'python3-asn1crypto'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: probeSignaturePython,
  async run({ input, outDir, options }, ctx) {
    const o = optionsFor(OPTIONS, options);
    if (o.sign_certificate === undefined)
      throw new FileconvError('INVALID_REQUEST', 'option sign_certificate is required to sign');
    await assertPdfHeader(input);
    const output = join(outDir, 'output.pdf');
    const job = {
      input,
      output,
      p12: P12_URL.exec(o.sign_certificate)![1],
      password: o.sign_password,
      document_password: o.password,
      reason: o.sign_reason,
      location: o.sign_location,
      page: o.sign_page,
      position: o.sign_position,
    };
    const done = await runScript<Signed>(
      probeSignaturePython,
      script(),
      job,
      ctx,
      'The signature could not be made.',
    );
    ctx.log(
      `signed by ${done.signer} (PAdES B-B), ${done.visible_on ? `shown on page ${done.visible_on}` : 'invisible'}; certificate valid until ${done.certificate_valid_until}${done.certificate_expired ? ' (expired: readers will say so)' : ''}`,
    );
    return { files: [output] };
  },
});

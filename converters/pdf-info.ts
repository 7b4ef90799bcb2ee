import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { optionsFor } from '../src/engine/options.js';
import { convertersDir } from '../src/engine/package-files.js';
import { password } from '../src/engine/shared-options.js';
import { assertPdfHeader } from './_pdf.js';
import { probeSignaturePython, runScript } from './_script-answer.js';

/**
 * A PDF's report, as JSON: version, pages and their sizes, document information, the PDF/A part
 * its XMP claims, encryption and permissions, form fields, attachments, and every signature it
 * carries, checked from the file's bytes (converters/pdf-info/signatures.py): whether the bytes
 * signed are unchanged and the signature matches the signer's key, whether it covers the whole
 * file or the file was changed after it, and the signer's certificate with its chain and whether
 * that chain ends at a root of the system's certificate list. pikepdf (qpdf) reads the file,
 * Python's cryptography and asn1crypto the signatures; the document's password arrives on
 * standard input.
 */

/** Debian's ca-certificates bundle: the roots a signer's chain may end at to count as trusted. */
const SYSTEM_ROOTS = '/etc/ssl/certs/ca-certificates.crt';

const OPTIONS = { password };

const edges: ConversionEdge[] = [{ from: 'pdf', to: 'json', family: 'report', lossy: true, cost: 5 }];

const folder = () => convertersDir('pdf-info');
interface Summary {
  pages: number;
  signatures: {
    field: string;
    signer: string | null;
    signed_at: string | null;
    valid: boolean;
    problem: string | null;
    covers_whole_file: boolean | null;
  }[];
}

/** One timeline line per signature: who, when, and whether it still holds. */
function signatureLine(s: Summary['signatures'][number], i: number, count: number): string {
  const who = `signature ${i + 1} of ${count} (${s.field}): ${s.signer ?? 'signer unknown'}${s.signed_at ? `, ${s.signed_at}` : ''}`;
  if (!s.valid) return `${who}: NOT VALID, ${s.problem}`;
  return `${who}: valid${s.covers_whole_file ? ', covers the whole file' : '; the file was changed after it was signed'}`;
}

export default defineConverter({
  name: 'pdf-info',
  description:
    "pikepdf and Python cryptography: a PDF's report as JSON (pages, sizes, metadata, encryption) with every signature checked",
  packages: ['python3-pikepdf', 'python3-cryptography', 'python3-asn1crypto', 'ca-certificates'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: probeSignaturePython,
  async run({ input, outDir, options }, ctx) {
    const o = optionsFor(OPTIONS, options);
    await assertPdfHeader(input);
    const output = join(outDir, 'output.json');
    const roots = existsSync(SYSTEM_ROOTS) ? SYSTEM_ROOTS : null;
    const job = { input, output, password: o.password, roots };
    const script = join(folder(), 'pdf_info.py');
    const { pages, signatures } = await runScript<Summary>(
      probeSignaturePython,
      script,
      job,
      ctx,
      'The PDF could not be read.',
    );
    ctx.log(
      `${pages} page(s), ${signatures.length === 0 ? 'no signature' : `${signatures.length} signature(s)`}`,
    );
    for (const [i, s] of signatures.entries()) ctx.log(signatureLine(s, i, signatures.length));
    return { files: [output] };
  },
});

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from '../../src/index.js';
import { textPdf } from '../converters/_image-samples.js';
import { cacheDir } from '../corpus/fetch.js';
import { pdfsig } from '../helpers/pdfsig.js';
import { makePkcs12 } from '../helpers/pkcs12.js';
import {
  downloadArtifact,
  filePart,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';

/**
 * A PDF's report (pdf to json): pages, sizes and metadata read back by pdfinfo, and every
 * signature checked as poppler's pdfsig (NSS) checks it: on PDFs signed by others (qpdf's test
 * files from the real-world corpus: one self-signed, one by Adobe Sign through Adobe's chain), on
 * one signed here, on the same file changed after signing (an incremental update appended) and
 * with a byte of its signed range changed.
 */

const hasEngine =
  spawnSync('/usr/bin/python3', ['-c', 'import pikepdf, cryptography, asn1crypto']).status === 0;
const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const QPDF_TESTS = join(cacheDir(), 'files', 'upstream', 'qpdf', 'qpdf-11.3.0', 'qpdf', 'qtest', 'qpdf');
const SELF_SIGNED = join(QPDF_TESTS, 'digitally-signed.pdf');
const ADOBE_SIGN = join(QPDF_TESTS, 'minimal-signed-restricted.pdf');
const NOT_CACHED = !existsSync(SELF_SIGNED) || !existsSync(ADOBE_SIGN);

interface Signature {
  field: string;
  signer?: string;
  valid: boolean;
  problem?: string;
  covers_whole_file?: boolean;
  bytes_after_signature?: number;
  type: string;
  reason: string | null;
  certificate?: {
    chain: string[];
    expired: boolean;
    valid_when_signed: boolean | null;
    self_signed: boolean;
    trusted: boolean;
  };
}
interface Report {
  pages: number;
  page_sizes: { pages: string; width: number; height: number }[];
  info: Record<string, string>;
  encryption: { method: string; allows: Record<string, boolean> } | null;
  signatures: Signature[];
}

let server: TestServer;
let dir: string;
let signed: string;

async function reportOf(pdf: string, options: Record<string, unknown> = {}): Promise<Report> {
  const out = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  await convert(pdf, { to: 'json', output: out, options });
  return JSON.parse(readFileSync(out, 'utf8')) as Report;
}

/** The common names OpenSSL reads from the certificates of the CMS in the PDF's (first) /Contents. */
function opensslChain(pdf: string): string[] {
  const bytes = readFileSync(pdf);
  const range = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)/.exec(bytes.toString('latin1'))!;
  const hex = bytes.subarray(Number(range[2]) + 1, Number(range[3]) - 1).toString('latin1');
  const der = join(dir, 'cms.der');
  writeFileSync(der, Buffer.from(hex.replace(/(00)+$/, ''), 'hex'));
  const certs = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', der, '-print_certs', '-noout'], {
    encoding: 'utf8',
  });
  return [...certs.matchAll(/^subject=.*?CN ?= ?(?:"([^"]+)"|([^,\n]+))/gm)].map((m) =>
    (m[1] ?? m[2])!.trim(),
  );
}

/**
 * The file with an incremental update appended, as a reader that fills a form or adds a comment
 * saves it: a new document information dictionary in its own revision after the signed bytes.
 */
function withRevision(pdf: string): string {
  const bytes = readFileSync(pdf);
  const text = bytes.toString('latin1');
  const previous = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const trailer = text.slice(text.lastIndexOf('trailer'));
  const root = /\/Root\s+(\d+\s+\d+\s+R)/.exec(trailer)![1];
  const size = Number(/\/Size\s+(\d+)/.exec(trailer)![1]);
  const object = `\n${size} 0 obj\n<< /Title (Changed after signing) >>\nendobj\n`;
  const objectAt = bytes.length + 1;
  const xrefAt = bytes.length + Buffer.byteLength(object, 'latin1');
  const update =
    `${object}xref\n${size} 1\n${String(objectAt).padStart(10, '0')} 00000 n \n` +
    `trailer\n<< /Size ${size + 1} /Root ${root} /Info ${size} 0 R /Prev ${previous} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  const out = join(dir, 'revised.pdf');
  writeFileSync(out, Buffer.concat([bytes, Buffer.from(update, 'latin1')]));
  return out;
}

describe.skipIf(!hasEngine)(
  'a PDF report with its signatures checked (python3-pikepdf, python3-asn1crypto)',
  () => {
    beforeAll(async () => {
      dir = tempDir();
      const p12 = makePkcs12(dir, 'Grace Hopper', 'pass-1');
      const source = await textPdf(dir, ['Lease page one', 'Lease page two'], 'lease.pdf');
      signed = join(dir, 'signed.pdf');
      await convert(source, {
        to: 'pdf',
        output: signed,
        signCertificate: p12,
        options: { sign_password: 'pass-1', sign_reason: 'Agreed' },
      });
      server = await startTestServer();
    });
    afterAll(async () => {
      await server?.stop();
      if (server) removeDir(server.dataDir);
      removeDir(dir);
    });

    it.skipIf(NOT_CACHED)(
      'checks signatures made by others as pdfsig does, with their chains (npm run corpus)',
      async () => {
        for (const pdf of [SELF_SIGNED, ADOBE_SIGN]) {
          const report = await reportOf(pdf);
          const poppler = pdfsig(pdf);
          expect(report.signatures).toHaveLength(1);
          const [s] = report.signatures as [Signature];
          expect(poppler).toContain(`Signer Certificate Common Name: ${s.signer}`);
          expect(poppler).toContain(`Signature Type: ${s.type}`);
          expect(poppler).toContain('Signature Validation: Signature is Valid.');
          expect(poppler).toContain('Total document signed');
          expect(s).toMatchObject({ valid: true, covers_whole_file: true, bytes_after_signature: 0 });
          // Both certificates ran out after signing (pdfsig: "Certificate has Expired").
          expect(poppler).toContain('Certificate has Expired');
          expect(s.certificate?.expired).toBe(true);
          // ...but not before they signed: pdfsig's "Signature is Valid" above says the same.
          expect(s.certificate?.valid_when_signed).toBe(true);
          expect(s.certificate?.chain).toEqual(
            expect.arrayContaining(opensslChain(pdf).filter((cn) => s.certificate!.chain.includes(cn))),
          );
          expect(s.certificate?.chain.length).toBe(opensslChain(pdf).length);
          const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
          expect(info).toMatch(new RegExp(`^Pages:\\s+${report.pages}$`, 'm'));
        }
        const adobe = await reportOf(ADOBE_SIGN);
        expect(adobe.signatures[0]?.certificate).toMatchObject({
          chain: ['Adobe Sign, a Document Cloud solution', 'Adobe CDS CA', 'Adobe Root CA G2'],
          self_signed: false,
          // Adobe's root is in Adobe's trust list, not in the system's (Mozilla's) list of roots.
          trusted: false,
        });
        // It is encrypted with an empty user password: opened, and its permissions said as qpdf says them.
        expect(adobe.encryption?.method).toBe('AES-128');
        const qpdf = execFileSync('qpdf', ['--show-encryption', ADOBE_SIGN], { encoding: 'utf8' });
        expect(qpdf).toContain('modify other: not allowed');
        expect(adobe.encryption?.allows.modify).toBe(false);
        expect(qpdf).toContain('extract for any purpose: allowed');
        expect(adobe.encryption?.allows.copy).toBe(true);
      },
    );

    it('reports a signature made here through a started server, and pages and sizes as pdfinfo reads them', async () => {
      const res = await post(`${server.url}/api/public/convert`, [
        metaPart({ conversion: 'pdf-json' }),
        filePart('lease.pdf', readFileSync(signed)),
      ]);
      expect(res.status).toBe(202);
      const done = await waitDone(server.url, res.json.request_id as string);
      expect(done.status).toBe('succeeded');
      const out = await downloadArtifact(server.url, done.request_id, 'json', dir, 'server.json');
      const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
      expect(report.signatures).toHaveLength(1);
      expect(report.signatures[0]).toMatchObject({
        signer: 'Grace Hopper',
        type: 'ETSI.CAdES.detached',
        reason: 'Agreed',
        valid: true,
        covers_whole_file: true,
        certificate: { self_signed: true, trusted: false, expired: false, chain: ['Grace Hopper'] },
      });
      expect(pdfsig(signed)).toContain('Signature Validation: Signature is Valid.');
      const info = execFileSync('pdfinfo', [signed], { encoding: 'utf8' });
      expect(info).toMatch(new RegExp(`^Pages:\\s+${report.pages}$`, 'm'));
      const [w, h] = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(info)!.slice(1).map(Number) as [
        number,
        number,
      ];
      expect(report.page_sizes).toEqual([{ pages: '1-2', width: w, height: h }]);
      const timeline = JSON.stringify(
        await (await fetch(`${server.url}/api/public/requests/${done.request_id}/timeline`)).json(),
      );
      expect(timeline).toMatch(
        /signature 1 of 1 \(Signature1\): Grace Hopper, [0-9TZ:-]+: valid, covers the whole file/,
      );
    });

    it('tells a file changed after signing from one whose signed bytes changed, as pdfsig does', async () => {
      const revised = withRevision(signed);
      expect(execFileSync('pdfinfo', [revised], { encoding: 'utf8' })).toContain('Changed after signing');
      const later = (await reportOf(revised)).signatures[0]!;
      expect(pdfsig(revised)).toContain('Signature Validation: Signature is Valid.');
      expect(pdfsig(revised)).toContain('Not total document signed');
      expect(later).toMatchObject({ valid: true, covers_whole_file: false });
      expect(later.bytes_after_signature).toBeGreaterThan(100);

      const bytes = readFileSync(signed);
      // The reason written in the signature dictionary, which the signed ranges cover.
      const at = bytes.indexOf('/Reason (Agreed)');
      expect(at).toBeGreaterThan(0);
      bytes.write('Denied', at + 9, 'latin1');
      const altered = join(dir, 'altered.pdf');
      writeFileSync(altered, bytes);
      expect(pdfsig(altered)).toContain('Digest Mismatch');
      const broken = (await reportOf(altered)).signatures[0]!;
      expect(broken.valid).toBe(false);
      expect(broken.problem).toMatch(/signed bytes have changed/);
    });

    it('describes the file as given: an operation that would change it first is refused', async () => {
      await expect(
        convert(signed, { to: 'json', output: join(dir, 'never.json'), options: { watermark: 'DRAFT' } }),
      ).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/watermark/) });
    });

    it('reports an unsigned, encrypted PDF from the CLI with its password, and refuses it without one', async () => {
      const plain = await textPdf(dir, ['Memo'], 'memo.pdf');
      const locked = join(dir, 'locked.pdf');
      execFileSync('qpdf', ['--encrypt', 'open-2', 'owner-2', '256', '--print=none', '--', plain, locked]);
      const out = join(dir, 'locked.json');
      const ok = await execa(BIN, ['convert', locked, '--to', 'json', '-o', out, '-O', 'password=open-2'], {
        reject: false,
      });
      expect(ok.exitCode, ok.stderr).toBe(0);
      const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
      expect(report).toMatchObject({ pages: 1, signatures: [], encryption: { method: 'AES-256' } });
      expect(report.encryption?.allows.print).toBe(false);
      // Without it, the detail code the API and the CLI report (through the library: one CLI start is enough).
      await expect(convert(locked, { to: 'json', output: join(dir, 'no.json') })).rejects.toMatchObject({
        code: 'ENCRYPTED_DOCUMENT',
      });
    });
  },
);

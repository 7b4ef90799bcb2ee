import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from '../../src/index.js';
import { createLogger } from '../../src/server/observability/logging.js';
import { textPdf } from '../converters/_image-samples.js';
import { pdfsig } from '../helpers/pdfsig.js';
import { makePkcs12 } from '../helpers/pkcs12.js';
import {
  downloadArtifact,
  filePart,
  type Json,
  jsonLineSink,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';
import { type Raster, render } from './_pdf-tools-samples.js';

/**
 * Signing a PDF with a PKCS#12 certificate, through a started server and through the CLI. Each
 * signature is checked by poppler's pdfsig (NSS) and, independently, by OpenSSL's CMS verification
 * over the byte ranges the signature names.
 */

const hasSigner =
  spawnSync('/usr/bin/python3', ['-c', 'import pikepdf, cryptography, asn1crypto']).status === 0;
const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const lines: Json[] = [];

let server: TestServer;
let dir: string;
let source: string;
let p12: string;
/** The certificate's password: it must never be kept or said anywhere. */
const marker = `marker-${randomUUID()}`;

/** OpenSSL's own check: the CMS in /Contents verifies over the bytes its /ByteRange names. */
function opensslVerifies(pdf: string): { ok: boolean; attributes: string } {
  const bytes = readFileSync(pdf);
  const text = bytes.toString('latin1');
  const range = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text);
  if (!range) return { ok: false, attributes: '' };
  const [a, b, c, d] = range.slice(1).map(Number) as [number, number, number, number];
  const signed = Buffer.concat([bytes.subarray(a, a + b), bytes.subarray(c, c + d)]);
  const hex = bytes
    .subarray(a + b + 1, c - 1)
    .toString('latin1')
    .replace(/0+$/, '');
  const der = Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
  const content = join(dir, `signed-${randomUUID()}.bin`);
  const cms = join(dir, `sig-${randomUUID()}.der`);
  writeFileSync(content, signed);
  writeFileSync(cms, der);
  const verify = spawnSync(
    'openssl',
    [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      cms,
      '-content',
      content,
      '-noverify',
      '-out',
      '/dev/null',
    ],
    { encoding: 'utf8' },
  );
  const attributes = spawnSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', cms], {
    encoding: 'utf8',
  }).stdout;
  return { ok: verify.status === 0 && /Verification successful/.test(verify.stderr), attributes };
}

/** `fileconv convert SOURCE --to pdf -o OUT --sign-certificate P12` with more arguments; fails the test on a failure. */
async function signWithCli(out: string, ...more: string[]): Promise<void> {
  const args = [
    'convert',
    source,
    '--to',
    'pdf',
    '-o',
    out,
    '--sign-certificate',
    p12,
    '-O',
    `sign_password=${marker}`,
  ];
  const r = await execa(BIN, [...args, ...more], { reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
}

/** Pixels darker than 128 in the bottom-left quarter of a grey render's lowest fifth. */
function inkBottomLeft(r: Raster): number {
  let n = 0;
  for (let y = Math.floor(r.height * 0.8); y < r.height; y++)
    for (let x = 0; x < r.width / 2; x++) if (r.data[y * r.width + x]! < 128) n++;
  return n;
}

let made = 0;
async function convertThroughServer(
  input: string,
  options: Json,
  certificate?: Buffer,
): Promise<{ done: Json; out: string }> {
  const parts = [metaPart({ conversion: 'pdf-pdf', options }), filePart('contract.pdf', readFileSync(input))];
  if (certificate)
    parts.push({
      name: 'certificate',
      filename: 'identity.p12',
      value: certificate,
      contentType: 'application/x-pkcs12',
    });
  const res = await post(`${server.url}/api/public/convert`, parts);
  if (res.status !== 202) return { done: { status: res.status, ...res.json }, out: '' };
  const done = await waitDone(server.url, res.json.request_id as string);
  if (done.status !== 'succeeded') return { done, out: '' };
  const out = await downloadArtifact(server.url, done.request_id, 'pdf', dir, `signed-${++made}.pdf`);
  return { done, out };
}

describe.skipIf(!hasSigner)('signing PDFs (python3-pikepdf, python3-asn1crypto installed)', () => {
  beforeAll(async () => {
    dir = tempDir();
    p12 = makePkcs12(dir, 'Ada Lovelace', marker);
    source = await textPdf(dir, ['Contract page one', 'Contract page two'], 'contract.pdf');
    server = await startTestServer(
      {},
      { logger: createLogger({ format: 'json', level: 'info', destination: jsonLineSink(lines) }) },
    );
  });
  afterAll(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    removeDir(dir);
  });

  it('signs through the API (PAdES B-B, invisible) with the certificate and its password kept nowhere', async () => {
    const { done, out } = await convertThroughServer(
      source,
      { sign_password: marker, sign_reason: 'Approved', sign_location: 'London' },
      readFileSync(p12),
    );
    expect(done.status).toBe('succeeded');
    const report = pdfsig(out);
    expect(report).toContain('Signer Certificate Common Name: Ada Lovelace');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Validation: Signature is Valid.');
    const openssl = opensslVerifies(out);
    expect(openssl.ok).toBe(true);
    // PAdES binds the signer's certificate by the signing-certificate-v2 attribute and keeps the
    // signing time out of the CMS (it is the signature dictionary's /M).
    expect(openssl.attributes).toMatch(/signingCertificateV2/i);
    expect(openssl.attributes).not.toMatch(/signingTime/i);
    expect(execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' })).toContain('Contract page two');
    const timeline = (await (
      await fetch(`${server.url}/api/public/requests/${done.request_id}/timeline`)
    ).json()) as Json;
    expect(JSON.stringify(timeline)).toMatch(/signed by Ada Lovelace \(PAdES B-B\), invisible/);

    // Neither the password nor the key's file is in anything the server keeps or says.
    const kept: Buffer[] = [
      Buffer.from(JSON.stringify(lines)),
      Buffer.from(server.logs.join('\n')),
      Buffer.from(JSON.stringify(timeline)),
    ];
    const walk = (d: string) => {
      for (const entry of readdirSync(d)) {
        const path = join(d, entry);
        if (statSync(path).isDirectory()) walk(path);
        else kept.push(readFileSync(path));
      }
    };
    walk(server.dataDir);
    const key = readFileSync(p12);
    const secrets = [
      Buffer.from(marker),
      key.subarray(key.length - 64),
      Buffer.from(key.toString('base64').slice(200, 264)),
    ];
    for (const bytes of kept) for (const s of secrets) expect(bytes.includes(s)).toBe(false);
  });

  it('signs after the other operations of the request: a watermark, then the signature over it', async () => {
    const { done, out } = await convertThroughServer(
      source,
      { sign_password: marker, watermark: 'DRAFT' },
      readFileSync(p12),
    );
    expect(done.status).toBe('succeeded');
    expect(pdfsig(out)).toContain('Signature Validation: Signature is Valid.');
    expect(opensslVerifies(out).ok).toBe(true);
  });

  it('draws a visible signature on the page asked, and a changed byte shows in the check', async () => {
    const out = join(dir, 'visible.pdf');
    await signWithCli(
      out,
      '-O',
      'sign_page=2',
      '-O',
      'sign_position=bottom-left',
      '-O',
      'sign_reason=Reviewed',
    );
    expect(pdfsig(out)).toContain('Signature Validation: Signature is Valid.');
    expect(opensslVerifies(out).ok).toBe(true);
    // The box: text a reader extracts, and ink at the bottom left of page 2, where page 1 has none.
    const words = execFileSync('pdftotext', ['-f', '2', '-l', '2', out, '-'], { encoding: 'utf8' });
    expect(words).toContain('Digitally signed by Ada Lovelace');
    expect(words).toContain('Reason: Reviewed');
    expect(inkBottomLeft(render(out, 2, dir, true))).toBeGreaterThan(50);
    expect(inkBottomLeft(render(out, 1, dir, true))).toBe(0);

    const bytes = readFileSync(out);
    const at = bytes.indexOf('/Reason (Reviewed)');
    bytes.write('Reviewer', at + 9, 'latin1');
    const changed = join(dir, 'changed.pdf');
    writeFileSync(changed, bytes);
    expect(pdfsig(changed)).toContain('Digest Mismatch');
    expect(opensslVerifies(changed).ok).toBe(false);
  });

  it('signs from the CLI on a server, the certificate sent as its own part', async () => {
    const out = join(dir, 'remote.pdf');
    await signWithCli(out, '--server', server.url);
    expect(pdfsig(out)).toContain('Signature Validation: Signature is Valid.');
  });

  it('signs through the library with the certificate given as a path', async () => {
    const out = join(dir, 'library.pdf');
    await convert(source, {
      to: 'pdf',
      output: out,
      signCertificate: p12,
      options: { sign_password: marker },
    });
    expect(pdfsig(out)).toContain('Signature Validation: Signature is Valid.');
    expect(opensslVerifies(out).ok).toBe(true);
  });

  it('refuses what it cannot sign, each with its reason', async () => {
    const wrong = await convertThroughServer(source, { sign_password: 'not-it' }, readFileSync(p12));
    expect(wrong.done.error?.code).toBe('INVALID_REQUEST');
    expect(wrong.done.error.message).toMatch(/cannot be opened with the password/);
    expect(JSON.stringify(wrong.done)).not.toContain(marker);

    const encrypted = await convertThroughServer(
      source,
      { sign_password: marker, user_password: 'x' },
      readFileSync(p12),
    );
    expect(encrypted.done.status).toBe(400);
    expect(encrypted.done.error.message).toMatch(/sign_certificate cannot be given with user_password/);

    const page = await convertThroughServer(
      source,
      { sign_password: marker, sign_page: 9 },
      readFileSync(p12),
    );
    expect(page.done.error?.message).toMatch(/sign_page 9: the document has 2 pages/);

    const once = await convertThroughServer(source, { sign_password: marker }, readFileSync(p12));
    const twice = await convertThroughServer(once.out, { sign_password: marker }, readFileSync(p12));
    expect(twice.done.error?.code).toBe('INVALID_REQUEST');
    expect(twice.done.error.message).toMatch(/already carries 1 signature/);

    const notP12 = await convertThroughServer(
      source,
      { sign_password: marker },
      Buffer.from('not a certificate'),
    );
    expect(notP12.done.error?.code).toBe('INVALID_REQUEST');

    // Refused while the upload is read: a certificate part over the option's 64 KiB.
    const large = await convertThroughServer(source, { sign_password: marker }, Buffer.alloc(70 * 1024, 1));
    expect(large.done.status).toBe(400);
    expect(large.done.error.message).toMatch(/certificate is over 65536 bytes/);
  });
});

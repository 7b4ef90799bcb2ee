import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A PKCS#12 identity (an RSA key and its self-signed certificate) made by OpenSSL, as a signer
 * would export one, written to `dir/<name>.p12` under `password`; returns its path.
 */
export function makePkcs12(dir: string, commonName: string, password: string, name = 'identity'): string {
  const scratch = mkdtempSync(join(dir, 'pkcs12-'));
  const key = join(scratch, 'key.pem');
  const cert = join(scratch, 'cert.pem');
  const out = join(dir, `${name}.p12`);
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '30',
        '-subj',
        `/CN=${commonName}/O=Analytical Engines`,
      ],
      { stdio: 'ignore' },
    );
    execFileSync(
      'openssl',
      ['pkcs12', '-export', '-inkey', key, '-in', cert, '-out', out, '-passout', `pass:${password}`],
      { stdio: 'ignore' },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return out;
}

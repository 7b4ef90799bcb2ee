import { readFile, stat } from 'node:fs/promises';
import { FileconvError } from '../errors/index.js';

/**
 * The PKCS#12 file of `sign_certificate` (docs/operations.md) travels as a `data:` URL option,
 * sealed in the records like a password. The CLI's `--sign-certificate`, the library's
 * `signCertificate` and the HTTP API's `certificate` part make it from a file.
 */

/** A certificate with its key is a few KB; the option's own limit. */
export const MAX_CERTIFICATE_BYTES = 64 * 1024;

/** The data: URL of a PKCS#12 file's bytes. */
export function certificateUrl(bytes: Uint8Array): string {
  if (bytes.length > MAX_CERTIFICATE_BYTES)
    throw new FileconvError('INVALID_REQUEST', `The certificate is over ${MAX_CERTIFICATE_BYTES} bytes.`);
  return `data:application/x-pkcs12;base64,${Buffer.from(bytes).toString('base64')}`;
}

/** Reads a PKCS#12 file from a path (or takes its bytes) into its data: URL. */
export async function readCertificateUrl(input: string | Uint8Array): Promise<string> {
  if (typeof input !== 'string') return certificateUrl(input);
  const missing = () => {
    throw new FileconvError('FILE_NOT_FOUND', 'The certificate file does not exist or cannot be read.');
  };
  const { size } = await stat(input).catch(missing);
  if (size > MAX_CERTIFICATE_BYTES)
    throw new FileconvError('INVALID_REQUEST', `The certificate is over ${MAX_CERTIFICATE_BYTES} bytes.`);
  return certificateUrl(await readFile(input).catch(missing));
}

import type { PrivateAllowance } from '../../intake/guard.js';
import { fetchToFile } from '../../intake/url.js';
import { DEFAULT_MAX_UPLOAD } from '../config.js';
import type { UrlIntake } from '../context.js';

/**
 * The URL intake of this package: public addresses only, every redirect hop checked. Test suites
 * may pass the loopback allowance of src/intake/loopback.ts (FILECONV_TEST_ALLOW_LOOPBACK_SOURCES).
 */
export function publicUrlIntake(maxBytes: number, allowPrivate: PrivateAllowance = false): UrlIntake {
  return {
    fetch: (url, destDir, { signal }) => fetchToFile(url, destDir, { signal, maxBytes, allowPrivate }),
  };
}

/** The URL intake with the default upload limit as its size cap. */
export async function loadUrlIntake(maxBytes = DEFAULT_MAX_UPLOAD): Promise<UrlIntake> {
  return publicUrlIntake(maxBytes);
}

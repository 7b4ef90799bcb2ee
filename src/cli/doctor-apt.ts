import { execa } from 'execa';
import { findBinary } from '../run/binary.js';
import { OCR_LANGUAGE_CODE, ocrLanguagePackage } from '../run/ocr-languages.js';

/** What every engine runs inside (src/run/confine.ts): bubblewrap's mount namespace. */
export const SANDBOX_PACKAGES = ['bubblewrap'];

/**
 * Tools the browser tests (chromium), the detection benchmark (file, /usr/bin/time) and the
 * PostgreSQL store tests (postgresql: initdb and postgres for a throwaway cluster) use, and
 * msoffcrypto-tool, which checks the Agile-encrypted Office files the tests make.
 */
export const TEST_TOOL_PACKAGES = [
  'chromium',
  'file',
  'time',
  'postgresql',
  'libimage-exiftool-perl',
  'uchardet',
  'python3-msoffcrypto-tool',
  // A second OCR language (test/operations/ocr-languages.test.ts reads French with it).
  'tesseract-ocr-fra',
  // Certificates for the signing tests, and an independent check of their signatures.
  'openssl',
];

/** Debian packages among `packages` that are not installed (dpkg's view). */
export async function missingPackages(packages: readonly string[]): Promise<string[]> {
  const unique = [...new Set(packages)].sort();
  if (unique.length === 0) return [];
  if (!findBinary(['dpkg-query']))
    throw new Error('dpkg-query not found: installing engines needs a Debian-like system');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own field syntax, not a template
  const r = await execa('dpkg-query', ['-W', '-f=${Package} ${db:Status-Status}\\n', ...unique], {
    reject: false,
    stdin: 'ignore',
  });
  const installed = new Set(
    r.stdout
      .split('\n')
      .map((l) => l.trim().split(' '))
      .filter(([, status]) => status === 'installed')
      .map(([name]) => name),
  );
  return unique.filter((p) => !installed.has(p));
}

export function aptInstallLine(packages: readonly string[]): string {
  return `apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/** apt-get update, then installs `packages`; output goes to the terminal (stderr). */
export async function aptInstall(packages: readonly string[]): Promise<void> {
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const io = { stdin: 'ignore', stdout: process.stderr, stderr: process.stderr, env } as const;
  await execa('apt-get', ['update'], io);
  await execa('apt-get', ['install', '-y', '--no-install-recommends', ...packages], io);
}

/** The packages of `--ocr-langs fra,spa,chi_sim`; a code that is no Tesseract code is refused. */
export function ocrLanguagePackages(codes: string | undefined): string[] {
  if (codes === undefined) return [];
  const list = codes
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const bad = list.find((c) => !OCR_LANGUAGE_CODE.test(c));
  if (bad !== undefined || list.length === 0)
    throw new Error(
      `--ocr-langs takes Tesseract language codes like fra,spa,chi_sim${bad === undefined ? '' : `; "${bad.slice(0, 20)}" is not one`}.`,
    );
  return list.map(ocrLanguagePackage);
}

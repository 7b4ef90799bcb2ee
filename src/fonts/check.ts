import { execa } from 'execa';
import { FONT_PACKAGES, type FontPackage } from './catalog.js';
import { fontconfigEnv } from './fontconfig.js';

export interface FontPackageStatus extends FontPackage {
  /** Families of this package that fontconfig does not list. */
  missing: string[];
}

export interface FontReport {
  /** Why no family could be checked (fc-list missing or failing); every package then counts as missing. */
  problem?: string;
  packages: FontPackageStatus[];
}

/**
 * Every family name fontconfig lists, as the engines see it (through the project's fontconfig
 * file), or why it could not tell.
 */
export async function installedFamilies(): Promise<Set<string> | string> {
  const r = await execa('fc-list', [':', 'family'], {
    reject: false,
    stdin: 'ignore',
    env: fontconfigEnv(),
    timeout: 30_000,
  });
  if (r.code === 'ENOENT') return 'fc-list (package fontconfig) not found';
  if (r.exitCode !== 0) return `fc-list failed: ${r.stderr.trim().slice(0, 200)}`;
  // One line per face; a face lists all its family names, comma-separated.
  return new Set(r.stdout.split('\n').flatMap((line) => line.split(',').map((f) => f.trim())));
}

/** Which font packages' families fontconfig can find. */
export async function checkFonts(): Promise<FontReport> {
  const families = await installedFamilies();
  if (typeof families === 'string') {
    return { problem: families, packages: FONT_PACKAGES.map((p) => ({ ...p, missing: [...p.families] })) };
  }
  return {
    packages: FONT_PACKAGES.map((p) => ({ ...p, missing: p.families.filter((f) => !families.has(f)) })),
  };
}

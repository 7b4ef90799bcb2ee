import { execa } from 'execa';
import { findBinary } from '../run/binary.js';
import { ENGINE_ACCOUNT, engineConfinement, resetEngineConfinement } from '../run/confine.js';

/**
 * Creates the unprivileged system account engines run as (no home, no login shell, a group of
 * its own), once; engines fall back to a fixed uid without it. Returns what it did, for doctor.
 */
export async function ensureEngineAccount(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  if (engineConfinement().user?.name === ENGINE_ACCOUNT) return undefined;
  const useradd = findBinary(['useradd', '/usr/sbin/useradd']);
  if (!useradd) return `useradd not found: engines keep running as ${engineConfinement().user?.name}`;
  await execa(useradd, [
    '--system',
    '--user-group',
    '--no-create-home',
    '--home-dir',
    '/nonexistent',
    '--shell',
    '/usr/sbin/nologin',
    '--comment',
    'fileconv engines',
    ENGINE_ACCOUNT,
  ]);
  resetEngineConfinement();
  return `created the ${ENGINE_ACCOUNT} account engines run as`;
}

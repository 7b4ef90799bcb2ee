import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingPackages } from '../../src/cli/doctor-apt.js';

/**
 * Podman on a Debian machine without a container registry: the base image `debian:bookworm-slim`
 * is made from Debian's own packages (mmdebstrap) and imported under that name, images are built
 * with chroot isolation and run with runc. These machines mount cgroups in hybrid mode, which
 * crun refuses; runc with the cgroupfs manager runs there, and `default_ulimits = []` keeps podman
 * from setting limits the host's own settings already give.
 */

export const ROOT = join(import.meta.dirname, '..', '..');
/** The Debian packages this needs on a fresh machine. */
const HOST_PACKAGES = ['podman', 'runc', 'mmdebstrap', 'uidmap'];
const BASE = 'debian:bookworm-slim';

const confDir = mkdtempSync(join(tmpdir(), 'fileconv-podman-'));
const CONF = join(confDir, 'containers.conf');
writeFileSync(
  CONF,
  [
    '[containers]',
    'default_ulimits = []',
    '[engine]',
    'cgroup_manager = "cgroupfs"',
    'runtime = "runc"',
    'events_logger = "file"',
    '',
  ].join('\n'),
);

export const podmanEnv = { ...process.env, CONTAINERS_CONF: CONF };

/** Runs podman, returns its stdout; throws with its stderr when it fails. */
export function podman(args: string[], opts: { input?: string; allowFail?: boolean } = {}): string {
  const r = spawnSync('podman', args, {
    env: podmanEnv,
    encoding: 'utf8',
    input: opts.input,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0 && !opts.allowFail)
    throw new Error(`podman ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Installs podman, runc and mmdebstrap when missing (as root, from Debian's mirrors). */
export async function ensureHostTools(log: (m: string) => void): Promise<void> {
  const missing = await missingPackages(HOST_PACKAGES);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`needs root to install: ${missing.join(' ')}`);
  log(`installing ${missing.join(' ')}`);
  execFileSync(
    'apt-get',
    ['install', '-y', '-o', 'DPkg::Lock::Timeout=900', '--no-install-recommends', ...missing],
    {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    },
  );
}

/** The base image, made from Debian's packages when no image of that name exists. */
export function ensureBaseImage(log: (m: string) => void): void {
  if (imageExists(BASE)) return;
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-base-'));
  try {
    const tar = join(dir, 'rootfs.tar');
    log(`making ${BASE} with mmdebstrap`);
    execFileSync('mmdebstrap', ['--variant=minbase', 'bookworm', tar, 'http://deb.debian.org/debian'], {
      stdio: 'inherit',
    });
    podman(['import', tar, BASE]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function imageExists(name: string): boolean {
  return spawnSync('podman', ['image', 'exists', name], { env: podmanEnv }).status === 0;
}

/**
 * Builds the repository's Dockerfile as `tag`; returns the seconds it took. The host's apt cache
 * is lent to the build as an overlay (writes stay in the build), so packages this machine already
 * downloaded are not fetched again; the image keeps none of it.
 */
export function buildImage(tag: string, log: (m: string) => void): number {
  const start = Date.now();
  const cache = '/var/cache/apt/archives';
  const args = ['build', '--isolation=chroot', '--network=host', '--pull=never', '--format', 'docker'];
  if (existsSync(cache)) args.push('-v', `${cache}:${cache}:O`);
  // The host's CA bundle, for hosts whose HTTPS goes through an inspecting proxy (see the Dockerfile).
  const ca = process.env.SSL_CERT_FILE ?? '/etc/ssl/certs/ca-certificates.crt';
  if (existsSync(ca))
    args.push('-v', `${ca}:/run/build-ca.crt:ro`, '--build-arg', 'CA_BUNDLE=/run/build-ca.crt');
  log('building the image');
  execFileSync('podman', [...args, '-t', tag, ROOT], { stdio: 'inherit', env: podmanEnv });
  return (Date.now() - start) / 1000;
}

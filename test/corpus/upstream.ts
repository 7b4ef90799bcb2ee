/**
 * The real-world corpus's second source: the test suites format libraries ship in their own
 * sources (qpdf's PDFs, PngSuite, libzip's broken archives...), taken from Debian source packages
 * (see docs/corpus.md). `fetchUpstream` enables a `deb-src` entry of its own, downloads each
 * package's orig tarball with `apt-get source --download-only PKG=VERSION` into a cache outside
 * the repository, checks the tarball against the manifest's hash, extracts the listed paths, cuts
 * the truncated variants and checks every file's hash.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  type Archive,
  type CorpusEntry,
  type CorpusFile,
  exists,
  fileSha256,
  verifyCorpus,
} from './verify.js';

export interface UpstreamPackage {
  /** The Debian source package's version (`apt-get source PKG=VERSION`). */
  version: string;
  /** The upstream tarball the files come from, its SHA-256 (from the .dsc) and size. */
  orig: string;
  sha256: string;
  bytes: number;
  /** The licence of the package's files, from the `Files: *` paragraph of debian/copyright. */
  licence: string;
}

export interface UpstreamEntry extends CorpusEntry {
  version?: string;
  licence: string;
  /** Encrypted as shipped: a conversion without the password must end in ENCRYPTED_DOCUMENT (or an output). */
  encrypted?: boolean;
  /**
   * A media file with one kind of stream: a target that needs the other kind must be refused with
   * "The input has no audio stream" / "no video stream", which is the right answer.
   */
  tracks?: 'audio-only' | 'video-only';
}

export interface UpstreamManifest {
  distribution: string;
  source: 'upstream';
  packages: Record<string, UpstreamPackage>;
  files: UpstreamEntry[];
  missing: { format: string; reason: string }[];
}

export const UPSTREAM_MANIFEST = join(dirname(fileURLToPath(import.meta.url)), 'upstream.json');

/** The sources entry the fetch writes (once; it is the same every time). */
const SOURCES_FILE = '/etc/apt/sources.list.d/fileconv-corpus-src.sources';
const SOURCES_ENTRY = `Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

export async function readUpstream(): Promise<UpstreamManifest> {
  const manifest = JSON.parse(await readFile(UPSTREAM_MANIFEST, 'utf8')) as UpstreamManifest;
  for (const f of manifest.files) {
    const origin = f.cut ? manifest.files.find((o) => o.name === f.cut!.from) : manifest.packages[f.package!];
    if (!origin || !/^[0-9a-f]{64}$/.test(f.sha256))
      throw new Error(`upstream manifest: bad entry ${f.name}`);
  }
  return manifest;
}

/** Writes the deb-src entry when it is absent and refreshes apt's lists when source indexes are missing. */
async function enableSources(log: (line: string) => void): Promise<void> {
  const current = await readFile(SOURCES_FILE, 'utf8').catch(() => '');
  let changed = false;
  if (current !== SOURCES_ENTRY) {
    try {
      await writeFile(SOURCES_FILE, SOURCES_ENTRY);
    } catch (e) {
      throw new Error(
        `cannot write ${SOURCES_FILE} (${(e as Error).message}): run the corpus fetch as root, or add that deb-src entry yourself`,
      );
    }
    log(`wrote ${SOURCES_FILE} (deb-src, bookworm main)`);
    changed = true;
  }
  const probe = await execa('apt-cache', ['showsrc', 'qpdf'], { reject: false });
  if (changed || !/^Package: qpdf$/m.test(probe.stdout)) {
    log('apt-get update (source indexes)');
    await execa('apt-get', ['update', '-o', 'DPkg::Lock::Timeout=900']);
  }
}

/** The version Debian serves now and its orig tarball (name, sha256), from `apt-cache showsrc`. */
async function servedSource(
  name: string,
): Promise<{ version: string; orig: string; sha256: string } | undefined> {
  const show = (await execa('apt-cache', ['showsrc', name], { reject: false })).stdout.split('\n\n')[0] ?? '';
  const version = /^Version: (.+)$/m.exec(show)?.[1];
  const sums = /^Checksums-Sha256:\n((?: .+\n?)+)/m.exec(show)?.[1] ?? '';
  const line = sums
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((parts) => /\.orig\.tar\.[a-z0-9]+$/.test(parts[2] ?? ''));
  return version && line ? { version, orig: line[2]!, sha256: line[0]! } : undefined;
}

/**
 * The orig tarball of a pinned package, downloaded or reused from the cache and checked against its
 * hash. Only the orig tarball is needed: a missing Debian tarball or .dsc does not fail the fetch.
 * When the pinned version is no longer served, the served one is used and said loudly.
 */
async function fetchOrig(
  dir: string,
  name: string,
  pkg: UpstreamPackage,
  log: (line: string) => void,
): Promise<Archive> {
  const have = async (orig: string, hash: string) =>
    (await exists(join(dir, orig))) && (await fileSha256(join(dir, orig))) === hash;
  if (await have(pkg.orig, pkg.sha256)) return { path: join(dir, pkg.orig) };
  await execa('apt-get', ['source', '--download-only', `${name}=${pkg.version}`], {
    cwd: dir,
    reject: false,
  });
  if (await have(pkg.orig, pkg.sha256)) return { path: join(dir, pkg.orig) };
  if (await exists(join(dir, pkg.orig)))
    throw new Error(`${pkg.orig}: sha256 differs from the manifest's ${pkg.sha256}.`);
  const served = await servedSource(name);
  if (!served || served.version === pkg.version)
    throw new Error(`${name}: ${pkg.version}'s ${pkg.orig} could not be downloaded from the Debian mirrors.`);
  log(
    `WARNING: source package ${name} ${pkg.version} is no longer served; using ${served.version} instead. ` +
      'Update test/corpus/upstream.json (version, orig, hashes) and review the files whose hashes changed.',
  );
  await execa('apt-get', ['source', '--download-only', `${name}=${served.version}`], {
    cwd: dir,
    reject: false,
  });
  if (!(await have(served.orig, served.sha256)))
    throw new Error(
      `${name} ${served.version}: ${served.orig} could not be downloaded or differs from its index.`,
    );
  return { path: join(dir, served.orig), substitute: served.version };
}

/** Unpacks the entries' paths from a tarball into `into`. */
async function untar(tarball: string, entries: UpstreamEntry[], into: string): Promise<void> {
  const list = join(into, '.list');
  await writeFile(list, `${entries.map((e) => e.path!).join('\n')}\n`);
  // Paths a substitute no longer ships make tar exit 2; each one is then checked by the caller.
  await execa('tar', ['-xf', tarball, '-C', into, '--verbatim-files-from', '-T', list], { reject: false });
}

/**
 * Makes sure every file of the upstream manifest is in the cache with its recorded hash and
 * returns them. Throws one error naming every package or file that could not be had or did not match.
 */
export async function fetchUpstream(log: (line: string) => void = () => {}): Promise<CorpusFile[]> {
  const manifest = await readUpstream();
  let sourcesReady = false;
  return verifyCorpus(
    {
      packages: manifest.packages,
      files: manifest.files,
      archives: 'sources',
      title: 'The upstream corpus',
      noun: 'upstream files',
      fetching: 'fetching source',
      // The deb-src entry is needed once, and only when an orig tarball is not cached yet.
      prepare: async (dir, _name, pkg) => {
        if (sourcesReady || (await exists(join(dir, pkg.orig)))) return;
        await enableSources(log);
        sourcesReady = true;
      },
      fetch: fetchOrig,
      unpack: untar,
    },
    log,
  );
}

/**
 * The real-world corpus: files other projects made, taken from pinned Debian packages
 * (see docs/corpus.md). `fetchCorpus` downloads each package with `apt-get download PKG=VERSION`
 * into a cache outside the repository, checks the .deb against the manifest's hash, extracts the
 * listed files, cuts the truncated variants and checks every file's hash.
 *
 *   npx tsx test/corpus/fetch.ts            fetch and verify
 *   npx tsx test/corpus/fetch.ts --repin    re-pin packages Debian no longer serves (rewrites the manifest)
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  type Archive,
  type CorpusEntry,
  CorpusError,
  type CorpusFile,
  cacheDir,
  fileSha256,
  sha256,
  verifyCorpus,
} from './verify.js';

export type { CorpusEntry, CorpusFile } from './verify.js';
export { cacheDir, cutVariants, exists, fileSha256, sha256 } from './verify.js';

export interface CorpusPackage {
  version: string;
  /** SHA-256 of the .deb, as Debian's index lists it. */
  sha256: string;
  bytes: number;
}

export interface CorpusManifest {
  distribution: string;
  packages: Record<string, CorpusPackage>;
  files: CorpusEntry[];
  /** Formats of the registry that no Debian package of the distribution ships, and why. */
  missing: { format: string; reason: string }[];
}

export const MANIFEST = join(dirname(fileURLToPath(import.meta.url)), 'manifest.json');

export async function readManifest(): Promise<CorpusManifest> {
  const manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as CorpusManifest;
  for (const f of manifest.files) {
    const origin = f.cut ? manifest.files.find((o) => o.name === f.cut!.from) : manifest.packages[f.package!];
    if (!origin || !/^[0-9a-f]{64}$/.test(f.sha256)) throw new Error(`manifest: bad entry ${f.name}`);
  }
  return manifest;
}

/**
 * Downloads the pinned .deb (or reuses the cached one) and checks its hash. When Debian no longer
 * serves the pinned version (a security update replaced it), the current one is used instead and
 * said loudly: the run stays a measure of real files, and `--repin` makes the change permanent.
 */
async function fetchDeb(
  debs: string,
  name: string,
  pkg: CorpusPackage,
  log: (line: string) => void,
): Promise<Archive> {
  const wanted = `${name}_${pkg.version.replace(/:/g, '%3a')}_`;
  const cached = (await readdir(debs)).find((f) => f.startsWith(wanted) && f.endsWith('.deb'));
  if (cached && (await fileSha256(join(debs, cached))) === pkg.sha256) return { path: join(debs, cached) };
  const got = await execa('apt-get', ['download', `${name}=${pkg.version}`], { cwd: debs, reject: false });
  const file = (await readdir(debs)).find((f) => f.startsWith(wanted) && f.endsWith('.deb'));
  if (got.exitCode !== 0 || !file) {
    const policy = await execa('apt-cache', ['policy', name], { reject: false });
    const candidate = /Candidate:\s*(\S+)/.exec(policy.stdout)?.[1];
    if (!candidate || candidate === '(none)')
      throw new CorpusError(
        `${name}: neither ${pkg.version} nor any other version is served by the Debian mirrors.`,
      );
    log(
      `WARNING: ${name} ${pkg.version} is no longer served; using ${candidate} instead. ` +
        'Re-pin with `npx tsx test/corpus/fetch.ts --repin` and review the files whose hashes changed.',
    );
    const prefix = `${name}_${candidate.replace(/:/g, '%3a')}_`;
    await execa('apt-get', ['download', `${name}=${candidate}`], { cwd: debs });
    const current = (await readdir(debs)).find((f) => f.startsWith(prefix) && f.endsWith('.deb'));
    if (!current) throw new CorpusError(`${name} ${candidate}: apt-get download wrote no .deb.`);
    return { path: join(debs, current), substitute: candidate };
  }
  const hash = await fileSha256(join(debs, file));
  if (hash !== pkg.sha256)
    throw new CorpusError(`${file}: sha256 ${hash} differs from the manifest's ${pkg.sha256}.`);
  return { path: join(debs, file) };
}

/**
 * Makes sure every manifest file is in the cache with its recorded hash and returns them.
 * Throws one error naming every package or file that could not be had or did not match.
 */
export async function fetchCorpus(log: (line: string) => void = () => {}): Promise<CorpusFile[]> {
  const manifest = await readManifest();
  return verifyCorpus(
    {
      packages: manifest.packages,
      files: manifest.files,
      archives: 'debs',
      title: 'The corpus',
      noun: 'files',
      fetching: 'fetching',
      fetch: fetchDeb,
      unpack: async (deb, _entries, into) => {
        await execa('dpkg-deb', ['-x', deb, into]);
      },
    },
    log,
  );
}

/**
 * Moves packages whose pinned version Debian no longer serves to the candidate version: new .deb
 * hash, new file hashes; files the new version no longer ships are dropped. Prints what changed
 * so the true formats can be reviewed before the manifest is committed.
 */
async function repin(): Promise<void> {
  const manifest = await readManifest();
  const work = await mkdtemp(join(cacheDir(), '.repin-'));
  try {
    for (const [name, pkg] of Object.entries(manifest.packages)) {
      const policy = await execa('apt-cache', ['show', `${name}=${pkg.version}`], { reject: false });
      if (policy.exitCode === 0 && policy.stdout.includes(pkg.sha256)) continue;
      const show = (await execa('apt-cache', ['show', name])).stdout.split('\n\n')[0]!;
      const field = (key: string) => new RegExp(`^${key}: (.+)$`, 'm').exec(show)?.[1] ?? '';
      const next = { version: field('Version'), sha256: field('SHA256'), bytes: Number(field('Size')) };
      console.log(`${name}: ${pkg.version} -> ${next.version}`);
      await execa('apt-get', ['download', `${name}=${next.version}`], { cwd: work });
      const deb = (await readdir(work)).find((f) => f.startsWith(`${name}_`) && f.endsWith('.deb'))!;
      const tree = join(work, name);
      await execa('dpkg-deb', ['-x', join(work, deb), tree]);
      manifest.packages[name] = next;
      for (const e of manifest.files.filter((f) => f.package === name)) {
        const data = await readFile(join(tree, e.path!)).catch(() => undefined);
        if (!data) {
          console.log(`  dropped ${e.name} (not in the new version)`);
          manifest.files = manifest.files.filter((f) => f !== e && f.cut?.from !== e.name);
        } else if (sha256(data) !== e.sha256) {
          console.log(`  changed ${e.name}`);
          Object.assign(e, { sha256: sha256(data), bytes: data.length });
          for (const c of manifest.files.filter((f) => f.cut?.from === e.name))
            Object.assign(c, { sha256: sha256(data.subarray(0, c.cut!.bytes)) });
        }
      }
    }
    await writeFile(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const run = process.argv.includes('--repin')
    ? repin()
    : fetchCorpus(console.log).then((f) => console.log(`${f.length} corpus files verified in ${cacheDir()}`));
  run.catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
}

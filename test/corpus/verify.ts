/**
 * What both sources of the real-world corpus share (docs/corpus.md): the cache outside the
 * repository, the manifest entry, and the frame that makes sure every listed file is in the cache
 * with its recorded hash. A source (fetch.ts: Debian binary packages; upstream.ts: orig tarballs
 * of Debian source packages) only says how it gets one package's archive and unpacks entries from it.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface CorpusEntry {
  /** Unique name: `<package><path inside the package>`, or `cut/<name>` for a truncated variant. */
  name: string;
  /** The true format id (src/formats). */
  format: string;
  package?: string;
  path?: string;
  /** A truncated variant: the first `bytes` bytes of the entry named `from`. */
  cut?: { from: string; bytes: number };
  bytes: number;
  sha256: string;
  /** A damaged or invalid file as shipped (a test suite's bad input): a conversion must end in a clear code. */
  broken?: boolean;
  /** A file with no content (a workbook without a single cell): an empty table is the right output. */
  empty?: boolean;
  notes?: string;
}

export interface CorpusFile extends CorpusEntry {
  /** Where the verified file is in the cache. */
  file: string;
}

export function cacheDir(): string {
  return process.env.FILECONV_CORPUS_DIR ?? join(homedir(), '.cache', 'fileconv-corpus');
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
export const fileSha256 = async (path: string) => sha256(await readFile(path));
export const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** A failure whose message already names its package: it is reported as it is. */
export class CorpusError extends Error {}

/** The entry is in `files` with the manifest's hash. */
const verified = async (files: string, e: CorpusEntry) =>
  (await exists(join(files, e.name))) && (await fileSha256(join(files, e.name))) === e.sha256;

/**
 * Writes the truncated variants (`cut`) from their whole files in the cache and checks their hashes.
 * A variant of a file left out is left out; one of a file whose hash changed (a substituted
 * package) is reported as changed; any other difference is a problem.
 */
export async function cutVariants(
  entries: CorpusEntry[],
  files: string,
  found: { dropped: Set<string>; changed: Set<string>; problems: string[] },
): Promise<void> {
  for (const e of entries.filter((f) => f.cut)) {
    if (await verified(files, e)) continue;
    const source = join(files, e.cut!.from);
    if (found.dropped.has(e.cut!.from) || !(await exists(source))) {
      found.dropped.add(e.name);
      continue;
    }
    await mkdir(dirname(join(files, e.name)), { recursive: true });
    await writeFile(join(files, e.name), (await readFile(source)).subarray(0, e.cut!.bytes));
    if (await verified(files, e)) continue;
    if (found.changed.has(e.cut!.from)) found.changed.add(e.name);
    else found.problems.push(`${e.name}: sha256 differs from the manifest`);
  }
}

/** One package's archive: the pinned one, or the version served now when the pinned one is gone. */
export interface Archive {
  path: string;
  /** The version used instead of the pinned one: the files' hashes may differ. */
  substitute?: string;
}

/** What differs between the sources: where their archives are, how they are had and unpacked, what they are called. */
export interface CorpusSource<P extends { version: string }, E extends CorpusEntry> {
  packages: Record<string, P>;
  files: E[];
  /** The cache's subfolder that keeps the archives. */
  archives: string;
  /** The corpus's name in the error ("The corpus"), the files' in the warnings ("files"). */
  title: string;
  noun: string;
  /** The progress line's verb ("fetching", "fetching source"). */
  fetching: string;
  /** Runs before a package's progress line (the upstream source enables its deb-src entry once). */
  prepare?: (dir: string, name: string, pkg: P) => Promise<void>;
  /** Downloads the package's archive into `dir` (or reuses the cached one) and checks its hash. */
  fetch: (dir: string, name: string, pkg: P, log: (line: string) => void) => Promise<Archive>;
  /** Unpacks the entries' `path`s from the archive into the folder `into` (absent ones may be skipped). */
  unpack: (archive: string, entries: E[], into: string) => Promise<void>;
}

/** Copies the entries out of an archive; returns those it does not hold (possible in a substitute). */
async function extractFiles<E extends CorpusEntry>(
  archive: string,
  entries: E[],
  into: string,
  unpack: (archive: string, entries: E[], into: string) => Promise<void>,
): Promise<E[]> {
  const tmp = await mkdtemp(join(into, '.extract-'));
  const absent: E[] = [];
  try {
    await unpack(archive, entries, tmp);
    for (const e of entries) {
      const target = join(into, e.name);
      await mkdir(dirname(target), { recursive: true });
      if (await exists(join(tmp, e.path!))) await copyFile(join(tmp, e.path!), target);
      else absent.push(e);
    }
    return absent;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Makes sure every file of a source is in the cache with its recorded hash and returns them.
 * Throws one error naming every package or file that could not be had or did not match.
 */
export async function verifyCorpus<P extends { version: string }, E extends CorpusEntry>(
  source: CorpusSource<P, E>,
  log: (line: string) => void,
): Promise<(E & { file: string })[]> {
  const root = cacheDir();
  const dir = join(root, source.archives);
  const files = join(root, 'files');
  await mkdir(dir, { recursive: true });
  await mkdir(files, { recursive: true });
  const problems: string[] = [];

  // Files of a substituted package: a changed hash is reported, a file it no longer ships is left out.
  const changed = new Set<string>();
  const dropped = new Set<string>();
  for (const [name, pkg] of Object.entries(source.packages)) {
    const stale: E[] = [];
    for (const e of source.files.filter((f) => f.package === name))
      if (!(await verified(files, e))) stale.push(e);
    if (stale.length === 0) continue;
    try {
      await source.prepare?.(dir, name, pkg);
      log(`${source.fetching} ${name} ${pkg.version} (${stale.length} files)`);
      const archive = await source.fetch(dir, name, pkg, log);
      for (const e of await extractFiles(archive.path, stale, files, source.unpack)) dropped.add(e.name);
      for (const e of stale) {
        if (dropped.has(e.name) || (await verified(files, e))) continue;
        if (archive.substitute) changed.add(e.name);
        else problems.push(`${e.name}: sha256 differs from the manifest`);
      }
    } catch (e) {
      problems.push(e instanceof CorpusError ? e.message : `${name}: ${(e as Error).message}`);
    }
  }
  await cutVariants(source.files, files, { dropped, changed, problems });
  if (problems.length > 0)
    throw new Error(`${source.title} could not be verified:\n  ${problems.join('\n  ')}`);
  if (changed.size > 0)
    log(`WARNING: ${changed.size} ${source.noun} differ from their pinned hashes (newer package versions)`);
  if (dropped.size > 0)
    log(`WARNING: ${dropped.size} ${source.noun} are left out: newer package versions no longer ship them`);
  const kept = source.files.filter((e) => !dropped.has(e.name));
  return kept.map((e) => ({ ...e, file: join(files, e.name) }));
}

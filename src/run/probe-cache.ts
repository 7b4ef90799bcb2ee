import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/**
 * What an engine's binary prints for its version (or capability) flags, kept on disk between
 * processes. Probing every engine runs about twenty programs, LibreOffice and Chromium among them:
 * seconds of CPU that every `fileconv convert` and every server start would pay again for an
 * answer that changes only when a package is installed or upgraded. An entry holds while the
 * binary's file is the same one (inode, size, change time of the file the path resolves to);
 * installing or upgrading a package replaces the file, so the next probe runs the binary again.
 */
export interface BinaryOutput {
  exitCode: number | undefined;
  /** stdout and stderr interleaved, as the binary printed them. */
  all: string;
}

interface Entry extends BinaryOutput {
  file: string;
}

/** Where entries live: FILECONV_CACHE_DIR, else the user's cache folder (XDG), else nowhere. */
function cacheFile(): string | undefined {
  const dir =
    process.env.FILECONV_CACHE_DIR ??
    (process.env.XDG_CACHE_HOME ? join(process.env.XDG_CACHE_HOME, 'fileconv') : undefined) ??
    (homedir() ? join(homedir(), '.cache', 'fileconv') : undefined);
  return dir && dir !== 'off' ? join(dir, 'engine-probes.json') : undefined;
}

/** The identity of the file `path` runs; undefined when it cannot be read (then nothing is cached). */
function fileIdentity(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    const s = statSync(real);
    return `${real}:${s.ino}:${s.size}:${s.ctimeMs}`;
  } catch {
    return undefined;
  }
}

const inProcess = new Map<string, Promise<BinaryOutput>>();

function readEntries(file: string): Record<string, Entry> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, Entry>) : {};
  } catch {
    return {};
  }
}

/** Best effort: a cache that cannot be written (read-only home, full disk) only costs a probe. */
function remember(file: string, key: string, entry: Entry): void {
  try {
    const entries = { ...readEntries(file), [key]: entry };
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(entries), { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // not kept
  }
}

/** Runs `path args` (15 s at most), or answers what a clean run of the same binary file printed. */
export function binaryOutput(path: string, args: readonly string[]): Promise<BinaryOutput> {
  const key = [path, ...args].join('\0');
  const identity = fileIdentity(path);
  const memoKey = `${key}\0${identity}`;
  let answer = inProcess.get(memoKey);
  if (!answer) {
    answer = (async () => {
      const file = identity ? cacheFile() : undefined;
      const kept = file ? readEntries(file)[key] : undefined;
      if (kept && kept.file === identity) return { exitCode: kept.exitCode, all: kept.all };
      const r = await execa(path, args, { reject: false, timeout: 15_000, stdin: 'ignore', all: true });
      const fresh = { exitCode: r.exitCode, all: String(r.all ?? '') };
      // Only a clean run is kept: a failure (a Python module not installed yet) may be mended
      // without the binary changing, and the next probe must see it.
      if (file && identity && r.exitCode === 0) remember(file, key, { ...fresh, file: identity });
      return fresh;
    })();
    inProcess.set(memoKey, answer);
    // As on disk, a failed run is not remembered: the next probe (after an install) runs it again.
    answer.then(
      (r) => r.exitCode !== 0 && inProcess.delete(memoKey),
      () => inProcess.delete(memoKey),
    );
  }
  return answer;
}
